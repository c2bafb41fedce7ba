/// A FIFO buffer with a fixed capacity that drops its oldest element when full.
///
/// Used for events sent before a client (or the facade) has started.
package struct BoundedBuffer<Element> {
    /// The most elements kept.
    public let capacity: Int
    private var storage: [Element] = []
    private var head = 0
    /// How many elements were dropped because the buffer was full.
    public private(set) var droppedCount = 0

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { storage.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Appends `element`; returns the oldest element if it had to be dropped to make room
    /// (or `element` itself when the capacity is 0).
    @discardableResult
    public mutating func append(_ element: Element) -> Element? {
        guard capacity > 0 else {
            droppedCount += 1
            return element
        }
        storage.append(element)
        guard count > capacity else { return nil }
        let dropped = storage[head]
        head += 1
        droppedCount += 1
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return dropped
    }

    /// Removes and returns every element, oldest first.
    public mutating func removeAll() -> [Element] {
        let elements = Array(storage[head...])
        storage = []
        head = 0
        return elements
    }
}

extension BoundedBuffer: Sendable where Element: Sendable {}
