/// A D-Bus value, typed as it travels: the body of a message is a list of these.
///
/// Arrays carry their element signature so that an empty array still has a type; `a{sv}`
/// dictionaries are arrays of ``dictEntry`` values, and `ay` has a case of its own (``bytes``)
/// because file paths travel as byte arrays and must not be taken apart byte by byte.
public indirect enum BusValue: Sendable, Equatable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    /// UTF-8 text without NUL characters (the bus rejects both).
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`.
    case bytes([UInt8])
    /// `a<element>`: every item must have the signature `element`.
    case array(element: String, [BusValue])
    /// `(…)`.
    case structure([BusValue])
    /// `{kv}`, only inside an array.
    case dictEntry(BusValue, BusValue)
    /// `v`.
    case variant(BusValue)

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .bytes: return "ay"
        case .array(let element, _): return "a" + element
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        }
    }

    public var description: String {
        switch self {
        case .byte(let v): return "byte \(v)"
        case .boolean(let v): return "\(v)"
        case .int16(let v): return "int16 \(v)"
        case .uint16(let v): return "uint16 \(v)"
        case .int32(let v): return "int32 \(v)"
        case .uint32(let v): return "uint32 \(v)"
        case .int64(let v): return "int64 \(v)"
        case .uint64(let v): return "uint64 \(v)"
        case .double(let v): return "double \(v)"
        case .string(let v): return "\"\(v)\""
        case .objectPath(let v): return "objpath \(v)"
        case .signature(let v): return "signature \(v)"
        case .bytes(let v): return "bytes \(v)"
        case .array(_, let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .structure(let fields): return "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .dictEntry(let k, let v): return "\(k): \(v)"
        case .variant(let v): return "<\(v)>"
        }
    }
}

// MARK: Building and reading the common shapes

extension BusValue {
    /// `a{sv}` from pairs, in order (portal options, property maps).
    public static func vardict(_ entries: [(String, BusValue)]) -> BusValue {
        .array(element: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// `as`.
    public static func strings(_ values: [String]) -> BusValue {
        .array(element: "s", values.map { .string($0) })
    }

    public var stringValue: String? {
        switch self {
        case .string(let v), .objectPath(let v), .signature(let v): return v
        default: return nil
        }
    }

    public var uint32Value: UInt32? {
        if case .uint32(let v) = self { return v }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let v) = self { return v }
        return nil
    }

    /// The items of an array (`ay` gives its bytes as `.byte` values).
    public var arrayItems: [BusValue]? {
        switch self {
        case .array(_, let items): return items
        case .bytes(let bytes): return bytes.map { .byte($0) }
        default: return nil
        }
    }

    /// The value inside a variant, or the value itself.
    public var unwrapped: BusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// An `a{s…}` dictionary read back as a Swift dictionary (later keys win; variants kept).
    public var dictionary: [String: BusValue]? {
        guard case .array(_, let items) = self else { return nil }
        var result: [String: BusValue] = [:]
        for item in items {
            guard case .dictEntry(let key, let value) = item, let name = key.stringValue else { return nil }
            result[name] = value
        }
        return result
    }
}
