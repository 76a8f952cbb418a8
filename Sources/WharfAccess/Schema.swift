/// The store's schema, versioned with `PRAGMA user_version` and built by running forward
/// migrations in order: a fresh database runs them all, an older one runs the ones it lacks. No
/// migration is ever edited once released; a change is a new step at the end.
enum Schema {
    /// The version this build writes. A database with a higher version was made by a newer Wharf
    /// and is left untouched.
    static var currentVersion: Int { migrations.count }

    /// `migrations[n]` takes a database from version `n` to `n + 1`.
    static let migrations: [String] = [version1, version2, version3, version4]

    /// Version 1: bookmarks identified by device and inode only, and the importer's remembered
    /// directories. (Kept verbatim: it is how old stores on disk look.)
    static let version1 = """
        CREATE TABLE bookmarks (
            id INTEGER PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,
            app TEXT NOT NULL,
            path TEXT NOT NULL,
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            created REAL NOT NULL
        );
        CREATE TABLE remembered_directories (
            app TEXT NOT NULL,
            customization_id TEXT NOT NULL,
            directory TEXT NOT NULL,
            PRIMARY KEY (app, customization_id)
        );
        """

    /// Version 2: identity gains the file system id (device numbers change across reboots on
    /// some file systems; rows from version 1 get 0, which `FileIdentity.sameFile` treats as
    /// "compare devices", with the path as the last resort) and the birth time (so a recycled
    /// inode number is not taken for a deleted file; NULL where unknown); bookmarks learn their kind and
    /// rights; per-session grants and leases move into the store so that every Wharf process —
    /// and `wharf access list|revoke` — sees and can revoke them; the exporter's written
    /// directories are recorded for cleaning at the next start.
    ///
    /// Grants and leases belong to a store *instance* (one per process); deleting the instance
    /// row when the process ends, or when a later process finds it dead, removes them in one
    /// cascade. A revoked grant leaves its leases in place with `grant_id` NULL, so that a client
    /// can still balance its release while any I/O through them is refused. A lease on a file
    /// inside a granted directory records that directory's real path as its `anchor`, the point
    /// from which every later open walks down without following links.
    static let version2 = """
        ALTER TABLE bookmarks ADD COLUMN file_system INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE bookmarks ADD COLUMN is_directory INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE bookmarks ADD COLUMN read_only INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE bookmarks ADD COLUMN birth INTEGER;
        ALTER TABLE bookmarks ADD COLUMN resolved REAL;
        CREATE INDEX bookmarks_by_app_path ON bookmarks (app, path);
        ALTER TABLE remembered_directories ADD COLUMN updated REAL NOT NULL DEFAULT 0;
        CREATE TABLE instances (
            id TEXT PRIMARY KEY,
            pid INTEGER NOT NULL,
            process_start INTEGER NOT NULL,
            started REAL NOT NULL
        );
        CREATE TABLE grants (
            id INTEGER PRIMARY KEY,
            instance TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
            client TEXT NOT NULL,
            app TEXT NOT NULL,
            path TEXT NOT NULL,
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            file_system INTEGER NOT NULL,
            birth INTEGER,
            is_directory INTEGER NOT NULL,
            read_only INTEGER NOT NULL,
            bookmark_id INTEGER REFERENCES bookmarks (id) ON DELETE CASCADE,
            created REAL NOT NULL,
            UNIQUE (instance, client, path)
        );
        CREATE INDEX grants_by_app_path ON grants (app, path);
        CREATE INDEX grants_by_bookmark ON grants (bookmark_id);
        CREATE TABLE leases (
            id INTEGER PRIMARY KEY,
            access_id TEXT NOT NULL UNIQUE,
            instance TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
            client TEXT NOT NULL,
            grant_id INTEGER REFERENCES grants (id) ON DELETE SET NULL,
            path TEXT NOT NULL,
            anchor TEXT,
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            file_system INTEGER NOT NULL,
            birth INTEGER,
            is_directory INTEGER NOT NULL,
            read_only INTEGER NOT NULL,
            created REAL NOT NULL
        );
        CREATE INDEX leases_by_grant ON leases (grant_id);
        CREATE INDEX leases_by_owner ON leases (instance, client);
        CREATE TABLE written_directories (
            directory TEXT PRIMARY KEY,
            recorded REAL NOT NULL
        );
        """

    /// Version 3: paths are bytes. Linux file names need not be UTF-8, and SQLite compares
    /// text as text, so every path column now holds a blob of the path's exact bytes (blobs
    /// compare with `memcmp`); rows from version 2 are converted in place, their bytes
    /// unchanged. Grants learn whether they were given for a symbolic link itself (an
    /// importer's unresolved alias), so that such a grant resolves to the link.
    static let version3 = """
        UPDATE bookmarks SET path = CAST(path AS BLOB);
        UPDATE remembered_directories SET directory = CAST(directory AS BLOB);
        UPDATE grants SET path = CAST(path AS BLOB);
        UPDATE leases SET path = CAST(path AS BLOB), anchor = CAST(anchor AS BLOB);
        UPDATE written_directories SET directory = CAST(directory AS BLOB);
        ALTER TABLE grants ADD COLUMN is_symlink INTEGER NOT NULL DEFAULT 0;
        """

    /// Version 4: a revocation leaves a dated record for the process whose grant it removed.
    /// That process learns of it later (at its next access check or write), and by then the
    /// human may have picked the same file again in a dialog: the record's time tells a pick
    /// made after the revocation (a new consent, kept) from one made before it (revoked with the
    /// rest). The process deletes the record once it has judged it; the rest go with its
    /// instance row. A grant's row id is never used twice (`grant_ids` counts them, as
    /// AUTOINCREMENT would: SQLite otherwise gives the highest id again once its row is
    /// deleted), so a record, and a process's memory of its rows, always means one grant.
    static let version4 = """
        CREATE TABLE revoked_grants (
            instance TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
            grant_row INTEGER NOT NULL,
            revoked REAL NOT NULL,
            PRIMARY KEY (instance, grant_row)
        );
        CREATE TABLE grant_ids (last INTEGER NOT NULL);
        INSERT INTO grant_ids (last) SELECT coalesce(max(id), 0) FROM grants;
        """
}
