import Glibc
import Testing
import WharfTestSupport
@testable import WharfContentTypes

/// Loading the MIME database: lazily, once, from several directories in precedence order.
@Suite struct RegistryTests {
    @Test func loadsOnceEvenWhenManyThreadsAskAtOnce() async {
        let registry = ContentTypeRegistry(mimeDirectories: ContentTypeRegistry.system.mimeDirectories)
        let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0 ..< 16 {
                group.addTask { ObjectIdentifier(registry.tables) }
            }
            var all: Set<ObjectIdentifier> = []
            for await identity in group { all.insert(identity) }
            return all
        }
        #expect(identities.count == 1)
    }

    @Test func loadStatisticsDescribeWhatWasRead() {
        let statistics = ContentTypeRegistry.system.load()
        #expect(statistics.mimeTypes > 500)
        #expect(statistics.globRules > 500)
        #expect(statistics.magicSections > 100)
        #expect(statistics.seconds > 0)
        #expect(statistics.directories == ContentTypeRegistry.system.mimeDirectories)
    }

    @Test func higherPrecedenceDirectoriesOverrideAndDeleteLowerRules() throws {
        let directory = ScratchDirectory("wharf-ct")
        typealias F = MIMEDatabaseFixture
        var user = F()
        user.globs = ["0:text/x-diff:__NOGLOBS__", "50:text/x-diff:*.diff", "60:application/x-mine:*.png"]
        user.magic = [(50, "application/x-old", [F.rule(offset: 0, Array("__NOMAGIC__".utf8))]),
                      (50, "application/x-new", [F.rule(offset: 0, Array("MAGIC".utf8))])]
        var system = F()
        system.globs = ["55:text/x-diff:*.patch", "50:image/png:*.png"]
        system.magic = [(80, "application/x-old", [F.rule(offset: 0, Array("MAGIC".utf8))])]
        system.aliases = ["application/x-alias application/x-mine"]
        let registry = ContentTypeRegistry(mimeDirectories: [user.write(into: directory, at: "user"),
                                                             system.write(into: directory, at: "system")])
        let scope = ContentTypeScope(registry: registry)
        let tables = registry.tables
        func globs(_ name: String) -> [String] {
            scope.globMatches(name, tables: tables).map { tables.database.typeNames[Int($0.type)] }
        }
        #expect(globs("a.diff") == ["text/x-diff"])
        #expect(globs("a.patch").isEmpty)  // deleted by the user directory's __NOGLOBS__
        #expect(globs("a.png") == ["application/x-mine", "image/png"])
        let file = directory.write("blob", Array("MAGIC".utf8) + [0])
        #expect(try scope.identify(path: file).get().mimeType == "application/x-new")
        #expect(scope.type(forMIMEType: "application/x-alias") == scope.type(forMIMEType: "application/x-mine"))
    }

    @Test func missingDirectoriesAreEmptyNotFatal() {
        let scope = ContentTypeScope(registry: ContentTypeRegistry(mimeDirectories: ["/nonexistent/mime"]))
        #expect(scope.type(forFilenameExtension: "png") == "public.png")
        #expect(scope.conforms("public.png", to: "public.image"))
        // Wharf's own table knows png without any MIME database; a name only the database
        // could know is data.
        #expect(scope.identifyByName("x.png", isDirectory: false) == "public.png")
        #expect(scope.identifyByName("x.qqqzz", isDirectory: false) == "public.data")
    }

    @Test func defaultDirectoriesFollowTheXDGVariables() {
        let custom = ["XDG_DATA_HOME": "/home/someone/.data", "XDG_DATA_DIRS": "/opt/share:/usr/share:relative"]
        #expect(ContentTypeRegistry.defaultMIMEDirectories(environment: { custom[$0].map { Array($0.utf8) } })
            == ["/home/someone/.data/mime", "/opt/share/mime", "/usr/share/mime"])
        let homeOnly = ["XDG_DATA_HOME": "/home/someone/.data", "XDG_DATA_DIRS": ""]
        #expect(ContentTypeRegistry.defaultMIMEDirectories(environment: { homeOnly[$0].map { Array($0.utf8) } })
            == ["/home/someone/.data/mime", "/usr/local/share/mime", "/usr/share/mime"])
    }
}
