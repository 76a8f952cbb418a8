import WharfJSON

/// Reads typed fields out of a request's params, turning every mismatch into a -32602 error
/// that names the field and says what was expected.
///
/// Params that are absent (or `null`, or an empty array) read as an empty object; by-position
/// params (a non-empty array) are rejected, since every Wharf method takes named params.
public struct Params: Sendable {
    public let object: JSONObject
    /// A prefix for field names in nested readers (`options.timeoutMs`).
    private let path: String

    public init(_ json: JSON?) throws(ResponseError) {
        switch json {
        case nil: self.init(object: JSONObject(), path: "")
        case .object(let object)?: self.init(object: object, path: "")
        // An empty array is no params: Neovim writes an empty Lua table as `[]`, and a table
        // can be neither or both.
        case .array(let array)? where array.isEmpty: self.init(object: JSONObject(), path: "")
        case let other?: throw .invalidParams("params must be an object, got \(other.typeName)")
        }
    }

    public init(object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    /// The full name of a field, for messages.
    public func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    public func raw(_ key: String) -> JSON? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    private func mismatch(_ key: String, _ expected: String, _ value: JSON) -> ResponseError {
        .invalidParams("\(name(key)): expected \(expected), got \(value.typeName)")
    }

    public func missing(_ key: String) -> ResponseError { .invalidParams("\(name(key)) is required") }

    public func string(_ key: String) throws(ResponseError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    public func optionalString(_ key: String) throws(ResponseError) -> String? {
        guard let value = raw(key) else { return nil }
        guard case .string(let string) = value else { throw mismatch(key, "a string", value) }
        return string
    }

    public func bool(_ key: String, default fallback: Bool) throws(ResponseError) -> Bool {
        guard let value = raw(key) else { return fallback }
        guard case .bool(let bool) = value else { throw mismatch(key, "a boolean", value) }
        return bool
    }

    public func optionalInt(_ key: String, in range: ClosedRange<Int64>? = nil) throws(ResponseError) -> Int64? {
        guard let value = raw(key) else { return nil }
        let number: Int64
        switch value {
        case .int(let int): number = int
        case .double(let double) where double.rounded() == double && abs(double) < 9.0e18: number = Int64(double)
        default: throw mismatch(key, "an integer", value)
        }
        if let range, !range.contains(number) {
            throw .invalidParams("\(name(key)): must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }

    public func stringArray(_ key: String) throws(ResponseError) -> [String] {
        guard let values = try optionalStringArray(key) else { throw missing(key) }
        return values
    }

    public func optionalStringArray(_ key: String) throws(ResponseError) -> [String]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let array) = value else { throw mismatch(key, "an array of strings", value) }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard case .string(let string) = element else {
                throw .invalidParams("\(name(key))[\(index)]: expected a string, got \(element.typeName)")
            }
            strings.append(string)
        }
        return strings
    }

    public func optionalObject(_ key: String) throws(ResponseError) -> Params? {
        guard let value = raw(key) else { return nil }
        guard case .object(let object) = value else { throw mismatch(key, "an object", value) }
        return Params(object: object, path: name(key))
    }

    public func optionalArray(_ key: String) throws(ResponseError) -> [JSON]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let array) = value else { throw mismatch(key, "an array", value) }
        return array
    }

    /// Reads each element of an array of objects.
    public func objectArray(_ key: String) throws(ResponseError) -> [Params]? {
        guard let array = try optionalArray(key) else { return nil }
        var result: [Params] = []
        for (index, element) in array.enumerated() {
            guard case .object(let object) = element else {
                throw .invalidParams("\(name(key))[\(index)]: expected an object, got \(element.typeName)")
            }
            result.append(Params(object: object, path: "\(name(key))[\(index)]"))
        }
        return result
    }
}
