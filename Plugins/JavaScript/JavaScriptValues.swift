#if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
import TelemetryKit

#if canImport(JavaScriptCore)
import JavaScriptCore
#elseif canImport(CJavaScriptCore)
import CJavaScriptCore
#endif

/// A JavaScriptCore string owned for the duration of a scope.
struct JavaScriptString: ~Copyable {
    let ref: JSStringRef?

    init(_ string: String) {
        ref = JavaScriptValues.makeString(string)
    }

    deinit {
        if let ref { JSStringRelease(ref) }
    }
}

/// The property names a context reads and writes on every run, made once.
struct PropertyNames: ~Copyable {
    let payload = JavaScriptString("payload")
    let scope = JavaScriptString("scope")
    /// `payload.event_name`: the event's name, not a payload key (as for the transformations'
    /// variables).
    let eventName = JavaScriptString(JavaScriptValues.eventNameKey)
}

/// Conversions between event payloads and JavaScript values.
enum JavaScriptValues {
    /// The payload key that carries the event's name.
    static let eventNameKey = "event_name"

    /// Integers up to this magnitude are exact in a JavaScript number.
    private static let maxExactInteger: Double = 9_007_199_254_740_992

    // MARK: Strings

    /// A new JavaScriptCore string (the caller releases it).
    static func makeString(_ string: String) -> JSStringRef? {
        var string = string
        let hasNUL = string.withUTF8 { $0.contains(0) }
        if !hasNUL {
            return string.withCString { JSStringCreateWithUTF8CString($0) }
        }
        // A C string would end at the first NUL; UTF-16 keeps every character.
        let characters = Array(string.utf16)
        return characters.withUnsafeBufferPointer { JSStringCreateWithCharacters($0.baseAddress, $0.count) }
    }

    /// The Swift string of a JavaScriptCore string.
    static func string(_ string: JSStringRef?) -> String {
        guard let string else { return "" }
        let length = JSStringGetLength(string)
        guard length > 0 else { return "" }
        // UTF-8 from JavaScriptCore, then Swift's fast UTF-8 path; decoding UTF-16 in Swift is
        // several times slower. Lone surrogates do not convert to UTF-8: decode those as UTF-16.
        let capacity = JSStringGetMaximumUTF8CStringSize(string)
        let converted = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let written = JSStringGetUTF8CString(string, base, capacity)
            guard written > 1 else { return nil }
            return UnsafeRawBufferPointer(start: base, count: written - 1).withMemoryRebound(to: UInt8.self) {
                String(decoding: $0, as: UTF8.self)
            }
        }
        if let converted, converted.utf16.count == length { return converted }
        guard let characters = JSStringGetCharactersPtr(string) else { return converted ?? "" }
        return String(decoding: UnsafeBufferPointer(start: characters, count: length), as: UTF16.self)
    }

    /// `value` converted to a string the way JavaScript's `String(value)` does; nil if that throws.
    static func stringValue(_ value: JSValueRef?, in context: JSContextRef) -> String? {
        var exception: JSValueRef?
        guard let copy = JSValueToStringCopy(context, value, &exception), exception == nil else { return nil }
        defer { JSStringRelease(copy) }
        return string(copy)
    }

    // MARK: Payload in

    /// A payload as handed to a script: the JavaScript strings made for it, kept until the run
    /// ends so that unchanged keys and values are recognised without converting them back.
    struct Input: ~Copyable {
        struct Entry {
            var key: String
            var name: JSStringRef?
            /// The JavaScript string of a `.string` value.
            var string: JSStringRef?
            var original: PayloadValue
        }

        /// The `payload` object.
        let object: JSObjectRef
        /// In the order the keys were set, which is the order a script enumerates them in.
        var entries: [Entry] = []
        var eventName: JSStringRef?

        init(object: JSObjectRef) {
            self.object = object
        }

        deinit {
            for entry in entries {
                if let name = entry.name { JSStringRelease(name) }
                if let string = entry.string { JSStringRelease(string) }
            }
            if let eventName { JSStringRelease(eventName) }
        }
    }

    /// A plain object with the event's payload and `event_name`, with the strings made for it.
    static func makePayload(
        _ event: Event,
        in context: JSContextRef,
        names: borrowing PropertyNames
    ) -> Input? {
        guard let object = JSObjectMake(context, nil, nil) else { return nil }
        let attributes = JSPropertyAttributes(kJSPropertyAttributeNone)
        var input = Input(object: object)
        event.forEachPayloadEntry { key, value in
            guard key != eventNameKey else { return }
            let name = makeString(key)
            let jsValue: JSValueRef?
            var string: JSStringRef?
            switch value {
            case .string(let text):
                string = makeString(text)
                jsValue = JSValueMakeString(context, string)
            case .int(let integer): jsValue = JSValueMakeNumber(context, Double(integer))
            case .double(let double): jsValue = JSValueMakeNumber(context, double)
            case .bool(let bool): jsValue = JSValueMakeBoolean(context, bool)
            }
            input.entries.append(Input.Entry(key: key, name: name, string: string, original: value))
            JSObjectSetProperty(context, object, name, jsValue, attributes, nil)
        }
        input.eventName = makeString(event.type)
        JSObjectSetProperty(
            context,
            object,
            names.eventName.ref,
            JSValueMakeString(context, input.eventName),
            attributes,
            nil
        )
        return input
    }

    // MARK: Payload out

    /// The event with the payload the script left, or why that payload cannot be used.
    ///
    /// Keys are matched against `input` in enumeration order (JavaScript keeps insertion order),
    /// so that unchanged keys and values are kept as they were without converting them.
    static func readPayload(
        _ value: JSValueRef?,
        original event: Event,
        input: borrowing Input,
        in context: JSContextRef,
        names: borrowing PropertyNames,
        lineOffset: Int
    ) -> Result<Event, JavaScriptFailure> {
        guard let value, JSValueIsObject(context, value), !JSValueIsArray(context, value),
            let object = JSValueToObject(context, value, nil), !JSObjectIsFunction(context, object)
        else {
            return .failure(
                JavaScriptFailure(
                    .invalidPayload,
                    "after the script `payload` is \(typeName(value, in: context)); it must stay an object"
                )
            )
        }
        guard let propertyNames = JSObjectCopyPropertyNames(context, object) else {
            return .failure(JavaScriptFailure(.invalidPayload, "the keys of `payload` cannot be read"))
        }
        defer { JSPropertyNameArrayRelease(propertyNames) }

        var result = event
        var changes: [(key: String, value: PayloadValue?)] = []
        var matched = 0
        var cursor = 0
        let count = JSPropertyNameArrayGetCount(propertyNames)
        for index in 0..<count {
            let name = JSPropertyNameArrayGetNameAtIndex(propertyNames, index)
            var exception: JSValueRef?
            let property = JSObjectGetProperty(context, object, name, &exception)
            if let exception {
                return .failure(
                    JavaScriptFailure(.exception, errorMessage(exception, in: context, lineOffset: lineOffset))
                )
            }
            if JSStringIsEqual(name, names.eventName.ref) {
                if isUnchangedString(property, input.eventName, in: context) { continue }
                switch rename(property, in: context) {
                case .success(let newName): result.type = newName ?? event.type
                case .failure(let failure): return .failure(failure)
                }
                continue
            }
            let key: String
            let original: PayloadValue?
            if let position = input.entries[cursor...].firstIndex(where: { JSStringIsEqual(name, $0.name) }) {
                let entry = input.entries[position]
                cursor = position + 1
                matched += 1
                if isUnchanged(property, entry, in: context) { continue }
                key = entry.key
                original = entry.original
            } else {
                key = string(name)
                original = event.payloadValue(forKey: key)
            }
            switch payloadValue(property, original: original, in: context) {
            case .success(let converted): changes.append((key, converted))
            case .failure(let reason):
                return .failure(JavaScriptFailure(.invalidPayload, "payload.\(key) \(reason.message)"))
            }
        }
        if matched < input.entries.count {
            // Deleted keys; a key deleted and set again is among the changes, applied after.
            var present = Set<String>(minimumCapacity: count)
            for index in 0..<count { present.insert(string(JSPropertyNameArrayGetNameAtIndex(propertyNames, index))) }
            for entry in input.entries where !present.contains(entry.key) {
                result.setPayloadValue(nil, forKey: entry.key)
            }
        }
        for change in changes {
            result.setPayloadValue(change.value, forKey: change.key)
        }
        return .success(result)
    }

    /// Whether `value` is still the value the script was given for `entry`.
    private static func isUnchanged(_ value: JSValueRef?, _ entry: Input.Entry, in context: JSContextRef) -> Bool {
        switch entry.original {
        case .string: return isUnchangedString(value, entry.string, in: context)
        case .int(let integer):
            return JSValueIsNumber(context, value) && JSValueToNumber(context, value, nil) == Double(integer)
        case .double(let double):
            return JSValueIsNumber(context, value) && JSValueToNumber(context, value, nil) == double
        case .bool(let bool):
            return JSValueIsBoolean(context, value) && JSValueToBoolean(context, value) == bool
        }
    }

    private static func isUnchangedString(
        _ value: JSValueRef?,
        _ original: JSStringRef?,
        in context: JSContextRef
    ) -> Bool {
        guard let original, JSValueIsString(context, value),
            let copy = JSValueToStringCopy(context, value, nil)
        else { return false }
        defer { JSStringRelease(copy) }
        return JSStringIsEqual(copy, original)
    }

    /// The new event name in `payload.event_name` (nil: keep the name).
    private static func rename(_ value: JSValueRef?, in context: JSContextRef) -> Result<String?, JavaScriptFailure> {
        if value == nil || JSValueIsUndefined(context, value) { return .success(nil) }
        guard JSValueIsString(context, value), let name = stringValue(value, in: context), !name.isEmpty else {
            return .failure(
                JavaScriptFailure(
                    .invalidPayload,
                    "payload.\(eventNameKey) is \(typeName(value, in: context)); it must be a non-empty string"
                )
            )
        }
        return .success(name)
    }

    /// The payload value of a JavaScript value; nil removes the key.
    private static func payloadValue(
        _ value: JSValueRef?,
        original: PayloadValue?,
        in context: JSContextRef
    ) -> Result<PayloadValue?, JavaScriptFailure> {
        guard let value else { return .success(nil) }
        switch JSValueGetType(context, value) {
        case kJSTypeUndefined, kJSTypeNull:
            return .success(nil)
        case kJSTypeBoolean:
            return .success(.bool(JSValueToBoolean(context, value)))
        case kJSTypeNumber:
            return .success(number(JSValueToNumber(context, value, nil), original: original))
        case kJSTypeString:
            guard let string = stringValue(value, in: context) else {
                return .failure(JavaScriptFailure(.invalidPayload, "cannot be read as a string"))
            }
            return .success(.string(string))
        default:
            return .failure(
                JavaScriptFailure(
                    .invalidPayload,
                    "is \(typeName(value, in: context)); values must be strings, numbers or booleans"
                )
            )
        }
    }

    /// A JavaScript number as a payload value: integers stay integers while integral, doubles
    /// stay doubles, new integral numbers become integers.
    static func number(_ number: Double, original: PayloadValue?) -> PayloadValue {
        switch original {
        case .int(let integer)?:
            // Unchanged: keep the exact value, also beyond ±2^53 where a double rounds it.
            if Double(integer) == number { return .int(integer) }
            if let exact = Int64(exactly: number) { return .int(exact) }
            return .double(number)
        case .double?:
            return .double(number)
        default:
            if number.magnitude <= maxExactInteger, let exact = Int64(exactly: number) { return .int(exact) }
            return .double(number)
        }
    }

    // MARK: Descriptions

    /// The message of a thrown value, with its line in the script when it has one.
    ///
    /// - Parameter lastLine: the script's last line: an unterminated script is reported there
    ///   rather than on the closing line JavaScriptCore adds after a function body.
    static func errorMessage(
        _ exception: JSValueRef,
        in context: JSContextRef,
        lineOffset: Int = 0,
        lastLine: Int = .max
    ) -> String {
        let message = stringValue(exception, in: context) ?? "an exception that cannot be printed"
        guard let line = line(of: exception, in: context) else { return message }
        return "\(message) (line \(min(max(1, line - lineOffset), lastLine)))"
    }

    /// The `line` property of a thrown error.
    static func line(of exception: JSValueRef, in context: JSContextRef) -> Int? {
        guard let object = JSValueToObject(context, exception, nil) else { return nil }
        let lineName = JavaScriptString("line")
        let line = JSObjectGetProperty(context, object, lineName.ref, nil)
        guard let line, JSValueIsNumber(context, line) else { return nil }
        return Int(exactly: JSValueToNumber(context, line, nil))
    }

    /// A console argument as text: strings as they are, arrays and plain objects as JSON.
    static func describe(_ value: JSValueRef?, in context: JSContextRef) -> String {
        guard let value else { return "undefined" }
        if JSValueIsString(context, value) { return stringValue(value, in: context) ?? "" }
        let text = stringValue(value, in: context)
        if JSValueIsObject(context, value), JSValueIsArray(context, value) || text == "[object Object]" {
            var exception: JSValueRef?
            if let json = JSValueCreateJSONString(context, value, 0, &exception), exception == nil {
                defer { JSStringRelease(json) }
                return string(json)
            }
        }
        return text ?? "<unprintable \(typeName(value, in: context))>"
    }

    /// The JavaScript type of `value`, for messages.
    static func typeName(_ value: JSValueRef?, in context: JSContextRef) -> String {
        guard let value else { return "undefined" }
        switch JSValueGetType(context, value) {
        case kJSTypeUndefined: return "undefined"
        case kJSTypeNull: return "null"
        case kJSTypeBoolean: return "a boolean"
        case kJSTypeNumber: return "a number"
        case kJSTypeString: return "a string"
        case kJSTypeSymbol: return "a symbol"
        case kJSTypeObject:
            if JSValueIsArray(context, value) { return "an array" }
            if let object = JSValueToObject(context, value, nil), JSObjectIsFunction(context, object) {
                return "a function"
            }
            return "an object"
        default: return "a value of another type"
        }
    }
}
#endif
