/// One screenful to draw: each row a list of styled pieces of text, and where the cursor
/// goes (nil: hidden). ``render(with:)`` makes the bytes from the terminal's own capabilities.
public struct Frame: Sendable {
    public struct Style: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Style(rawValue: 1)
        public static let dim = Style(rawValue: 2)
        public static let reverse = Style(rawValue: 4)
        public static let underline = Style(rawValue: 8)
    }

    public struct Span: Sendable {
        public var text: String
        public var style: Style
        public init(_ text: String, _ style: Style = []) {
            self.text = text
            self.style = style
        }
    }

    public let rows: Int
    public let columns: Int
    public private(set) var lines: [[Span]]
    /// Row and column of the cursor, shown there (a text field); nil hides it.
    public var cursor: (row: Int, column: Int)?

    public init(rows: Int, columns: Int) {
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        lines = Array(repeating: [], count: self.rows)
    }

    /// Sets row `row` (rows outside the frame are ignored); text past the right edge is cut.
    public mutating func set(_ row: Int, _ spans: [Span]) {
        guard lines.indices.contains(row) else { return }
        var left = columns
        var fitted: [Span] = []
        for span in spans where left > 0 {
            let (text, used) = DisplayWidth.fit(span.text, to: left)
            fitted.append(Span(text, span.style))
            left -= used
        }
        lines[row] = fitted
    }

    /// The text of each row, without styles: what a person reads (for tests and logs).
    public var text: [String] { lines.map { $0.map(\.text).joined() } }

    /// The bytes that draw this frame over whatever the screen shows: each row addressed,
    /// written and cleared to its end.
    public func render(with terminfo: Terminfo) -> [UInt8] {
        render(with: terminfo, rows: renderedRows(with: terminfo), over: nil)
    }

    /// Each row's bytes: addressed, written and cleared to its end. Two frames whose rows make
    /// the same bytes show the same there.
    public func renderedRows(with terminfo: Terminfo) -> [[UInt8]] {
        let reset = terminfo[.exitAttributes] ?? []
        let clear = terminfo[.clearToEndOfLine] ?? []
        return lines.enumerated().map { row, spans in
            var output = move(row: row, column: 0, terminfo)
            output.reserveCapacity(columns + 32)
            for span in spans {
                if !span.style.isEmpty {
                    if span.style.contains(.bold) { output += terminfo[.enterBold] ?? [] }
                    if span.style.contains(.dim) { output += terminfo[.enterDim] ?? [] }
                    if span.style.contains(.reverse) { output += terminfo[.enterReverse] ?? [] }
                    if span.style.contains(.underline) { output += terminfo[.enterUnderline] ?? [] }
                }
                output += span.text.utf8
                if !span.style.isEmpty { output += reset }
            }
            output += clear
            return output
        }
    }

    /// The bytes that draw this frame, whose ``renderedRows(with:)`` are `rows`, over a screen
    /// that shows `previous` (rows of a frame of the same size; nil: anything): only the rows
    /// that differ, so a keystroke that changes two rows writes two rows.
    public func render(with terminfo: Terminfo, rows: [[UInt8]], over previous: [[UInt8]]?) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(previous == nil ? rows.count * (columns + 16) : 256)
        output += terminfo[.cursorInvisible] ?? []
        for (index, row) in rows.enumerated() {
            if let previous, previous.indices.contains(index), previous[index] == row { continue }
            output += row
        }
        if let cursor {
            output += move(row: cursor.row, column: cursor.column, terminfo)
            output += terminfo[.cursorNormal] ?? []
        }
        return output
    }

    private func move(row: Int, column: Int, _ terminfo: Terminfo) -> [UInt8] {
        guard let address = terminfo[.cursorAddress] else { return [] }
        return TerminfoParameters.expand(address, [row, column])
    }
}
