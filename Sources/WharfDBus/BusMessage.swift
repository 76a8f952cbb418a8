import CSystemBus

/// An incoming message, copied out of sd-bus on the bus thread so that it can travel to any
/// thread: a method reply, an error reply, a signal, or a method call to an exported object.
public struct BusMessage: Sendable, Equatable {
    /// The sender's unique name (`:1.42`); the bus fills it in, so it cannot be forged.
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The error, when this is an error reply.
    public var error: BusError?
    public var body: [BusValue]

    public init(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
                error: BusError? = nil, body: [BusValue] = []) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.error = error
        self.body = body
    }

    /// Copies `message` (header fields and the whole body). Bus thread only.
    init(copying message: OpaquePointer) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        sender = text(wharf_sd_bus_message_get_sender(message))
        path = text(wharf_sd_bus_message_get_path(message))
        interface = text(wharf_sd_bus_message_get_interface(message))
        member = text(wharf_sd_bus_message_get_member(message))
        if let error = wharf_sd_bus_message_get_error(message), error.pointee.name != nil {
            self.error = BusError(name: text(error.pointee.name) ?? BusError.Names.failed,
                                  message: text(error.pointee.message) ?? "")
        }
        body = (try? MessageReader.readAll(message)) ?? []
    }
}

/// Reading a message body into ``BusValue``s, with sd-bus's non-variadic reader.
enum MessageReader {
    static func readAll(_ message: OpaquePointer) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try next(message) { values.append(value) }
        return values
    }

    /// The next value at the reader's position, or nil at the end of the current container.
    static func next(_ message: OpaquePointer) throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        let peeked = wharf_sd_bus_message_peek_type(message, &type, &contents)
        if peeked < 0 { throw .local("sd_bus_message_peek_type", peeked) }
        if peeked == 0 { return nil }
        let inner = contents.map { String(cString: $0) } ?? ""
        return try read(message, type: UInt8(bitPattern: type), contents: inner)
    }

    private static func read(_ message: OpaquePointer, type: UInt8, contents: String) throws(BusError) -> BusValue {
        func basic<T>(_ initial: T) throws(BusError) -> T {
            var value = initial
            let r = withUnsafeMutablePointer(to: &value) { wharf_sd_bus_message_read_basic(message, CChar(bitPattern: type), $0) }
            if r < 0 { throw .local("sd_bus_message_read_basic", r) }
            return value
        }
        func text() throws(BusError) -> String {
            var pointer: UnsafePointer<CChar>? = nil
            let r = wharf_bus_read_string(message, CChar(bitPattern: type), &pointer)
            if r < 0 { throw .local("sd_bus_message_read_basic", r) }
            return pointer.map { String(cString: $0) } ?? ""
        }
        func container<T>(_ kind: UInt8, _ body: () throws(BusError) -> T) throws(BusError) -> T {
            var r = contents.withCString { wharf_sd_bus_message_enter_container(message, CChar(bitPattern: kind), $0) }
            if r < 0 { throw .local("sd_bus_message_enter_container", r) }
            let value = try body()
            r = wharf_sd_bus_message_exit_container(message)
            if r < 0 { throw .local("sd_bus_message_exit_container", r) }
            return value
        }
        switch type {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "h"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "s"): return .string(try text())
        case UInt8(ascii: "o"): return .objectPath(try text())
        case UInt8(ascii: "g"): return .signature(try text())
        case UInt8(ascii: "a") where contents == "y":
            var pointer: UnsafeRawPointer? = nil
            var size = 0
            let r = wharf_sd_bus_message_read_array(message, CChar(bitPattern: UInt8(ascii: "y")), &pointer, &size)
            if r < 0 { throw .local("sd_bus_message_read_array", r) }
            guard let pointer, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
        case UInt8(ascii: "a"):
            return try container(type) { () throws(BusError) -> BusValue in
                var items: [BusValue] = []
                while let item = try next(message) { items.append(item) }
                return .array(element: contents, items)
            }
        case UInt8(ascii: "r"):
            return try container(type) { () throws(BusError) -> BusValue in
                var fields: [BusValue] = []
                while let field = try next(message) { fields.append(field) }
                return .structure(fields)
            }
        case UInt8(ascii: "e"):
            return try container(type) { () throws(BusError) -> BusValue in
                guard let key = try next(message), let value = try next(message) else {
                    throw BusError(name: BusError.Names.invalidArgs, message: "a dictionary entry without a key and a value")
                }
                return .dictEntry(key, value)
            }
        case UInt8(ascii: "v"):
            return try container(type) { () throws(BusError) -> BusValue in
                guard let inner = try next(message) else {
                    throw BusError(name: BusError.Names.invalidArgs, message: "an empty variant")
                }
                return .variant(inner)
            }
        default:
            throw BusError(name: BusError.Names.invalidArgs, message: "unsupported D-Bus type '\(Character(Unicode.Scalar(type)))'")
        }
    }
}

/// Writing ``BusValue``s into a message, with sd-bus's non-variadic appenders.
enum MessageWriter {
    static func append(_ values: [BusValue], to message: OpaquePointer) throws(BusError) {
        for value in values { try append(value, to: message) }
    }

    static func append(_ value: BusValue, to message: OpaquePointer) throws(BusError) {
        func check(_ r: Int32, _ operation: String) throws(BusError) {
            if r < 0 { throw .local(operation, r) }
        }
        func basic<T>(_ type: Character, _ value: T) throws(BusError) {
            var copy = value
            let r = withUnsafePointer(to: &copy) { wharf_sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
            try check(r, "sd_bus_message_append_basic")
        }
        func text(_ type: Character, _ value: String) throws(BusError) {
            guard !value.utf8.contains(0) else {
                throw BusError(name: BusError.Names.invalidArgs, message: "a D-Bus string cannot contain a NUL character")
            }
            let r = value.withCString { wharf_sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
            try check(r, "sd_bus_message_append_basic")
        }
        func container(_ type: Character, _ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
            try check(contents.withCString { wharf_sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) },
                      "sd_bus_message_open_container")
            try body()
            try check(wharf_sd_bus_message_close_container(message), "sd_bus_message_close_container")
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let v): try text("s", v)
        case .objectPath(let v): try text("o", v)
        case .signature(let v): try text("g", v)
        case .bytes(let bytes):
            let r = bytes.withUnsafeBytes { wharf_sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
            try check(r, "sd_bus_message_append_array")
        case .array(let element, let items):
            for item in items where item.signature != element {
                throw BusError(name: BusError.Names.invalidArgs,
                               message: "an array of '\(element)' holds a value of type '\(item.signature)'")
            }
            try container("a", element) { () throws(BusError) in try append(items, to: message) }
        case .structure(let fields):
            let signature = value.signature
            try container("r", String(signature.dropFirst().dropLast())) { () throws(BusError) in try append(fields, to: message) }
        case .dictEntry(let key, let entryValue):
            try container("e", key.signature + entryValue.signature) { () throws(BusError) in
                try append(key, to: message)
                try append(entryValue, to: message)
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(BusError) in try append(inner, to: message) }
        }
    }
}
