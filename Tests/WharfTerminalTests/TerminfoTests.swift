import Testing
import WharfSystem
import WharfTestSupport
@testable import WharfTerminal

/// Terminfo entries read from the compiled database: Debian's own (ncurses-base), and
/// entries written here byte by byte in both formats, found where ncurses would look.
@Suite struct TerminfoTests {
    static let escape = "\u{1B}"

    /// A compiled entry: `names`, no booleans, `numbers` (16- or 32-bit), and `strings` by index.
    static func compiled(names: String, numbers: [Int], strings: [Int: String], wide: Bool = false) -> [UInt8] {
        func short(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        let nameBytes = Array(names.utf8) + [0]
        let stringCount = (strings.keys.max() ?? -1) + 1
        var table: [UInt8] = []
        var offsets: [Int] = Array(repeating: -1, count: stringCount)
        for index in strings.keys.sorted() {
            offsets[index] = table.count
            table += Array(strings[index]!.utf8) + [0]
        }
        var bytes = short(wide ? 0o1036 : 0o432) + short(nameBytes.count) + short(0) + short(numbers.count) + short(stringCount) + short(table.count)
        bytes += nameBytes
        if nameBytes.count % 2 == 1 { bytes.append(0) }
        for number in numbers { bytes += wide ? short(number) + short(number >> 16) : short(number) }
        for offset in offsets { bytes += short(offset) }
        return bytes + table
    }

    @Test func debiansXtermEntryMovesTheCursorAndSwitchesScreens() throws {
        let xterm = try Terminfo.load(term: "xterm", environment: [:])
        #expect(xterm.names.hasPrefix("xterm"))
        let cup = try #require(xterm[.cursorAddress])
        #expect(TerminfoParameters.expand(cup, [2, 4]) == Array("\(Self.escape)[3;5H".utf8))
        #expect(xterm[.enterAlternateScreen].map { String(decoding: $0, as: UTF8.self).contains("1049h") } == true)
        #expect(xterm[.keyUp] == Array("\(Self.escape)OA".utf8))
        #expect(xterm[.enterDim] == Array("\(Self.escape)[2m".utf8))
        #expect(xterm.columns == 80)
    }

    @Test func anUnknownTerminalIsNamedWithWhereItWasLookedFor() {
        #expect(throws: TerminfoError.self) { try Terminfo.load(term: "no-such-terminal", environment: [:]) }
        do {
            _ = try Terminfo.load(term: "no-such-terminal", environment: [:])
        } catch {
            #expect(error.description.contains("TERM=no-such-terminal"))
            #expect(error.description.contains("/lib/terminfo"))
        }
        #expect(throws: TerminfoError.self) { try Terminfo.locate(term: "../x", environment: [:]) }
    }

    @Test func entriesAreFoundUnderTERMINFOByLetterOrHexInEitherFormat() throws {
        let scratch = ScratchDirectory("terminfo")
        _ = scratch.makeDirectory("db")
        _ = scratch.makeDirectory("db/w")
        _ = scratch.makeDirectory("db/77")
        _ = scratch.write("db/w/wharf-test", Self.compiled(names: "wharf-test|a test", numbers: [100, -1, 30], strings: [10: "<%p1%d,%p2%d>", 87: "\(Self.escape)[A"]))
        _ = scratch.write("db/77/wharf-wide", Self.compiled(names: "wharf-wide", numbers: [70_000, -1, 50], strings: [10: "@%i%p1%d;%p2%d"], wide: true))
        let environment = ["TERMINFO": scratch.path("db").description]
        let test = try Terminfo.load(term: "wharf-test", environment: environment)
        #expect(test.names == "wharf-test|a test")
        #expect(test.columns == 100 && test.lines == 30)
        #expect(test[.cursorAddress].map { TerminfoParameters.expand($0, [7, 9]) } == Array("<7,9>".utf8))
        #expect(test[.keyUp] == Array("\(Self.escape)[A".utf8))
        #expect(test[.enterDim] == nil)
        let wide = try Terminfo.load(term: "wharf-wide", environment: environment)
        #expect(wide.columns == 70_000)
        #expect(wide[.cursorAddress].map { TerminfoParameters.expand($0, [0, 0]) } == Array("@1;1".utf8))
        // TERMINFO_DIRS: an empty entry stands for the system's directories.
        let listed = Terminfo.searchDirectories(environment: ["TERMINFO_DIRS": "/a::/b", "HOME": "/h"])
        #expect(listed == ["/h/.terminfo", "/a", "/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/b"])
    }

    @Test func theScreenIsGivenBackWithTheTerminalsOwnStrings() throws {
        let xterm = try Terminfo.load(term: "xterm", environment: [:])
        let restore = String(decoding: TerminalSession.restoreBytes(for: xterm), as: UTF8.self)
        #expect(restore.hasSuffix(String(decoding: xterm[.exitAlternateScreen]!, as: UTF8.self)))   // rmcup, last
        #expect(restore.contains("\(Self.escape)[?1049l"))
        #expect(restore.contains("\(Self.escape)[?25h"))      // cnorm
        #expect(restore.contains("\(Self.escape)[?1l"))       // rmkx
        // A VT100 has no alternate screen: it is cleared instead.
        let vt100 = try Terminfo.load(term: "vt100", environment: [:])
        #expect(vt100[.exitAlternateScreen] == nil)
        let cleared = TerminalSession.restoreBytes(for: vt100)
        #expect(cleared.suffix(vt100[.clearScreen]!.count).elementsEqual(vt100[.clearScreen]!))
    }

    @Test func malformedEntriesAreRefused() {
        #expect(throws: TerminfoError.self) { try Terminfo(compiled: [1, 2, 3, 4]) }
        var truncated = Self.compiled(names: "x", numbers: [80], strings: [10: "abc"])
        truncated.removeLast(3)
        #expect(throws: TerminfoError.self) { try Terminfo(compiled: truncated) }
    }
}

@Suite struct TerminfoParametersTests {
    func expand(_ format: String, _ parameters: [Int]) -> String {
        String(decoding: TerminfoParameters.expand(Array(format.utf8), parameters), as: UTF8.self)
    }

    @Test func parametersArithmeticAndPrintf() {
        #expect(expand("%i%p1%d;%p2%d", [0, 0]) == "1;1")
        #expect(expand("%p1%02d|%p1%3d|%p1%:-3d|%p1%x|%p1%X|%p1%o", [10]) == "10| 10|10 |a|A|12")
        // Without the colon, `%-` is subtraction.
        #expect(expand("%p1%p2%-%d", [10, 3]) == "7")
        #expect(expand("%p1%{32}%+%c", [33]) == "A")
        #expect(expand("%'a'%p1%+%c", [1]) == "b")
        #expect(expand("%p1%Pa%ga%ga%*%d", [7]) == "49")
        #expect(expand("100%%", []) == "100%")
        #expect(expand("%p1%{-3}%+%d", [1]) == "-2")
    }

    @Test func conditionalsPickTheirBranch() {
        // xterm's setaf.
        let setaf = "[%?%p1%{8}%<%t3%p1%d%e%p1%{16}%<%t9%p1%{8}%-%d%e38;5;%p1%d%;m"
        #expect(expand(setaf, [1]) == "[31m")
        #expect(expand(setaf, [9]) == "[91m")
        #expect(expand(setaf, [200]) == "[38;5;200m")
        #expect(expand("%?%p1%t%?%p2%tA%eB%;%eC%;", [1, 0]) == "B")
        #expect(expand("%?%p1%t%?%p2%tA%eB%;%eC%;", [0, 1]) == "C")
    }
}
