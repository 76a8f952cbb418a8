/// terminfo's parameterized strings (term(5), "Parameterized Strings"): `cup`'s
/// `\E[%i%p1%d;%p2%dH` made into the bytes that move the cursor to a row and column. The
/// language is a small stack machine: `%p1` pushes a parameter, `%d` pops and prints it,
/// `%i` adds one to the first two, `%{n}` pushes a number, `%+ %- %* %/ %m` and the comparisons
/// and logic work on the stack, `%? … %t … %e … %;` chooses, `%Pa`/`%ga` set and get variables.
public enum TerminfoParameters {
    public static func expand(_ format: [UInt8], _ parameters: [Int]) -> [UInt8] {
        var params = parameters + Array(repeating: 0, count: max(0, 9 - parameters.count))
        var stack: [Value] = []
        var variables: [UInt8: Value] = [:]
        var output: [UInt8] = []
        var index = 0

        func pop() -> Value { stack.popLast() ?? .number(0) }
        func popNumber() -> Int { pop().number }
        /// Skips forward from `index` to the `%e` or `%;` that closes the current level
        /// (`stopAtElse`: a `%e` counts), leaving `index` after it.
        func skip(stopAtElse: Bool) {
            var depth = 0
            while index + 1 < format.count {
                if format[index] == UInt8(ascii: "%") {
                    let code = format[index + 1]
                    index += 2
                    switch code {
                    case UInt8(ascii: "?"): depth += 1
                    case UInt8(ascii: ";"):
                        if depth == 0 { return }
                        depth -= 1
                    case UInt8(ascii: "e") where depth == 0 && stopAtElse: return
                    default: break
                    }
                } else {
                    index += 1
                }
            }
            index = format.count
        }

        while index < format.count {
            let byte = format[index]
            index += 1
            guard byte == UInt8(ascii: "%"), index < format.count else {
                output.append(byte)
                continue
            }
            let code = format[index]
            index += 1
            switch code {
            case UInt8(ascii: "%"): output.append(code)
            case UInt8(ascii: "c"): output.append(UInt8(truncatingIfNeeded: popNumber()))
            case UInt8(ascii: "s"): output += pop().bytes
            case UInt8(ascii: "l"): stack.append(.number(pop().bytes.count))
            case UInt8(ascii: "p"):
                if index < format.count, let digit = Int(String(UnicodeScalar(format[index]))), (1...9).contains(digit) {
                    stack.append(.number(params[digit - 1]))
                    index += 1
                }
            case UInt8(ascii: "P"):
                if index < format.count { variables[format[index]] = pop(); index += 1 }
            case UInt8(ascii: "g"):
                if index < format.count { stack.append(variables[format[index]] ?? .number(0)); index += 1 }
            case UInt8(ascii: "'"):
                if index < format.count { stack.append(.number(Int(format[index]))); index += 2 }
            case UInt8(ascii: "{"):
                var value = 0
                var negative = false
                if index < format.count, format[index] == UInt8(ascii: "-") { negative = true; index += 1 }
                while index < format.count, format[index] != UInt8(ascii: "}") {
                    value = value * 10 + Int(format[index]) - 48
                    index += 1
                }
                index += 1
                stack.append(.number(negative ? -value : value))
            case UInt8(ascii: "i"):
                params[0] += 1
                params[1] += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "m"),
                 UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "="), UInt8(ascii: ">"),
                 UInt8(ascii: "<"), UInt8(ascii: "A"), UInt8(ascii: "O"):
                let right = popNumber()
                let left = popNumber()
                let result: Int
                switch code {
                case UInt8(ascii: "+"): result = left &+ right
                case UInt8(ascii: "-"): result = left &- right
                case UInt8(ascii: "*"): result = left &* right
                case UInt8(ascii: "/"): result = right == 0 ? 0 : left / right
                case UInt8(ascii: "m"): result = right == 0 ? 0 : left % right
                case UInt8(ascii: "&"): result = left & right
                case UInt8(ascii: "|"): result = left | right
                case UInt8(ascii: "^"): result = left ^ right
                case UInt8(ascii: "="): result = left == right ? 1 : 0
                case UInt8(ascii: ">"): result = left > right ? 1 : 0
                case UInt8(ascii: "<"): result = left < right ? 1 : 0
                case UInt8(ascii: "A"): result = left != 0 && right != 0 ? 1 : 0
                default: result = left != 0 || right != 0 ? 1 : 0
                }
                stack.append(.number(result))
            case UInt8(ascii: "!"): stack.append(.number(popNumber() == 0 ? 1 : 0))
            case UInt8(ascii: "~"): stack.append(.number(~popNumber()))
            case UInt8(ascii: "?"): break
            case UInt8(ascii: "t"):
                if popNumber() == 0 { skip(stopAtElse: true) }
            case UInt8(ascii: "e"): skip(stopAtElse: false)
            case UInt8(ascii: ";"): break
            default:
                // printf-style: %[[:]flags][width[.precision]][doxXs]
                var spec: [UInt8] = [code]
                var end = index
                if code != UInt8(ascii: "d") && code != UInt8(ascii: "o") && code != UInt8(ascii: "x") && code != UInt8(ascii: "X") {
                    while end < format.count, !"doxXs".utf8.contains(format[end]) { spec.append(format[end]); end += 1 }
                    guard end < format.count else { output += [UInt8(ascii: "%")] + spec; index = end; continue }
                    spec.append(format[end])
                    index = end + 1
                }
                output += formatted(spec, pop())
            }
        }
        return output
    }

    enum Value {
        case number(Int)
        case text([UInt8])

        var number: Int {
            if case .number(let value) = self { return value }
            return 0
        }

        var bytes: [UInt8] {
            switch self {
            case .text(let bytes): bytes
            case .number(let value): Array(String(value).utf8)
            }
        }
    }

    /// One printf conversion: flags (`:` only introduces them), `-` left-justifies, `0` pads
    /// with zeros, a width and a precision (the least number of digits).
    private static func formatted(_ spec: [UInt8], _ value: Value) -> [UInt8] {
        var flags = Set<UInt8>()
        var position = 0
        while position < spec.count, ":-+# 0".utf8.contains(spec[position]) {
            if spec[position] != UInt8(ascii: ":") { flags.insert(spec[position]) }
            position += 1
        }
        var width = 0
        while position < spec.count, (48...57).contains(spec[position]) { width = width * 10 + Int(spec[position]) - 48; position += 1 }
        var precision: Int?
        if position < spec.count, spec[position] == UInt8(ascii: ".") {
            position += 1
            var digits = 0
            while position < spec.count, (48...57).contains(spec[position]) { digits = digits * 10 + Int(spec[position]) - 48; position += 1 }
            precision = digits
        }
        let conversion = spec.last ?? UInt8(ascii: "d")
        var body: [UInt8]
        switch conversion {
        case UInt8(ascii: "s"): body = value.bytes
        case UInt8(ascii: "o"): body = Array(String(value.number, radix: 8).utf8)
        case UInt8(ascii: "x"): body = Array(String(value.number, radix: 16).utf8)
        case UInt8(ascii: "X"): body = Array(String(value.number, radix: 16, uppercase: true).utf8)
        default: body = Array(String(abs(value.number)).utf8)
        }
        if conversion != UInt8(ascii: "s") {
            if let precision, body.count < precision { body = Array(repeating: 48, count: precision - body.count) + body }
            if conversion == UInt8(ascii: "d") {
                if value.number < 0 { body = [UInt8(ascii: "-")] + body }
                else if flags.contains(UInt8(ascii: "+")) { body = [UInt8(ascii: "+")] + body }
                else if flags.contains(UInt8(ascii: " ")) { body = [UInt8(ascii: " ")] + body }
            }
        }
        if body.count < width {
            let pad = width - body.count
            if flags.contains(UInt8(ascii: "-")) {
                body += Array(repeating: UInt8(ascii: " "), count: pad)
            } else if flags.contains(UInt8(ascii: "0")) && conversion != UInt8(ascii: "s") {
                let sign = body.first.map { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") } ?? false
                body.insert(contentsOf: Array(repeating: 48, count: pad), at: sign ? 1 : 0)
            } else {
                body = Array(repeating: UInt8(ascii: " "), count: pad) + body
            }
        }
        return body
    }
}
