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
        if !string.utf8.contains(0) {
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
        guard length > 0, let characters = JSStringGetCharactersPtr(string) else { return "" }
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

    /// A plain object with the event's payload and `event_name`.
    static func makePayload(_ event: Event, in context: JSContextRef, names: borrowing PropertyNames) -> JSObjectRef? {
        guard let object = JSObjectMake(context, nil, nil) else { return nil }
        let attributes = JSPropertyAttributes(kJSPropertyAttributeNone)
        for (key, value) in event.payload where key != eventNameKey {
            let name = JavaScriptString(key)
            JSObjectSetProperty(context, object, name.ref, makeValue(value, in: context), attributes, nil)
        }
        let eventName = JavaScriptString(event.type)
        JSObjectSetProperty(
            context,
            object,
            names.eventName.ref,
            JSValueMakeString(context, eventName.ref),
            attributes,
            nil
        )
        return object
    }

    private static func makeValue(_ value: PayloadValue, in context: JSContextRef) -> JSValueRef? {
        switch value {
        case .string(let string):
            let converted = JavaScriptString(string)
            return JSValueMakeString(context, converted.ref)
        case .int(let integer): return JSValueMakeNumber(context, Double(integer))
        case .double(let double): return JSValueMakeNumber(context, double)
        case .bool(let bool): return JSValueMakeBoolean(context, bool)
        }
    }

    // MARK: Payload out

    /// The event with the payload the script left, or why that payload cannot be used.
    static func readPayload(
        _ value: JSValueRef?,
        original event: Event,
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
        let count = JSPropertyNameArrayGetCount(propertyNames)
        var payload = [String: PayloadValue](minimumCapacity: count)
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
                switch rename(property, in: context) {
                case .success(let newName): result.type = newName ?? event.type
                case .failure(let failure): return .failure(failure)
                }
                continue
            }
            let key = string(name)
            switch payloadValue(property, original: event.payload[key], in: context) {
            case .success(let converted?): payload[key] = converted
            case .success(nil): continue
            case .failure(let reason):
                return .failure(JavaScriptFailure(.invalidPayload, "payload.\(key) \(reason.message)"))
            }
        }
        // A payload key named `event_name` is shadowed by the event's name in the script.
        if let shadowed = event.payload[eventNameKey] { payload[eventNameKey] = shadowed }
        result.payload = payload
        return .success(result)
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
