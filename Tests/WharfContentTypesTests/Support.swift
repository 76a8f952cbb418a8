import Glibc
import WharfSystem
import WharfTestSupport
@testable import WharfContentTypes


extension ContentTypeScope {
    /// What a listing would say of an entry with this name: a directory by its name (a folder,
    /// or a package by extension); a file by the name alone (``type(forFilename:)``).
    func identifyByName(_ name: String, isDirectory: Bool) -> String {
        guard isDirectory else { return type(forFilename: Array(name.utf8)) }
        var status = FileStatus.regularFile
        status.kind = .directory
        let file = FileToIdentify(name: Array(name.utf8), status: status, path: "/") { _ throws(SystemError) in 0 }
        return (try? identify(file, sniff: false).get().identifier) ?? "public.folder"
    }

    func globMatches(_ name: String, tables: Tables) -> [GlobMatch] { globMatches(Array(name.utf8), tables: tables) }
}

/// A registry over a MIME database written by the test: `globs2` lines, magic sections and
/// subclass/alias lines, so rules can be tested without depending on the system's database.
struct MIMEDatabaseFixture {
    var globs: [String] = []
    var magic: [(priority: Int, type: String, lines: [[UInt8]])] = []
    var subclasses: [String] = []
    var aliases: [String] = []

    /// One magic line: `[indent]>offset=<len><value>[&mask][~word][+range]\n`.
    static func rule(indent: Int = 0, offset: Int, _ value: [UInt8], mask: [UInt8]? = nil,
                     wordSize: Int? = nil, range: Int? = nil) -> [UInt8] {
        var line: [UInt8] = []
        if indent > 0 { line += Array(String(indent).utf8) }
        line += Array(">\(offset)=".utf8)
        line += [UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        if let mask { line += [UInt8(ascii: "&")] + mask }
        if let wordSize { line += Array("~\(wordSize)".utf8) }
        if let range { line += Array("+\(range)".utf8) }
        return line + [0x0A]
    }

    func write(into directory: ScratchDirectory, at name: String = "mime") -> FilePath {
        let base = directory.makeDirectory(name)
        directory.write(name + "/globs2", "# generated\n" + globs.map { $0 + "\n" }.joined())
        var magicBytes = Array("MIME-Magic".utf8) + [0, 0x0A]
        for section in magic {
            magicBytes += Array("[\(section.priority):\(section.type)]\n".utf8)
            for line in section.lines { magicBytes += line }
        }
        directory.write(name + "/magic", magicBytes)
        directory.write(name + "/subclasses", subclasses.map { $0 + "\n" }.joined())
        directory.write(name + "/aliases", aliases.map { $0 + "\n" }.joined())
        return base
    }
}
