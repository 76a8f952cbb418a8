extension JSON {
    /// Whether the JSON text in `bytes` holds more than `limit` values, counted without parsing.
    ///
    /// A parsed value costs far more memory than its text: `[],` is three bytes and two
    /// allocations (jansson's and then Swift's), some 60 bytes a byte in all, so 32 MiB of
    /// `[],[],…` became 2 GB. A server looks here first and refuses such a message instead of
    /// building it. The count is the containers and the commas between values, outside strings
    /// (a close lower bound of the values: a container's first member adds none); a text that
    /// is not JSON at all is left for the parser to refuse. Linear, and it stops at the limit.
    public static func holdsMoreValues(than limit: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        var count = 0
        var index = 0
        let end = bytes.count
        while index < end {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                // Skip the string: to the next quote that no backslash escapes.
                index += 1
                while index < end {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if byte == UInt8(ascii: "\"") { break }
                    index += 1
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","):
                count += 1
                if count > limit { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }
}
