import WharfSystem

/// Revocations made by other processes (`wharf access revoke`, another Wharf's `revokeAccess`),
/// found by looking at the store only when it changed.
///
/// SQLite's `PRAGMA data_version` changes when another connection commits, so checking it is
/// one cheap read; only when it moved does the check read which of this process's grant rows
/// still exist, and drop the grants whose rows are gone (a revoked bookmark takes its grants'
/// rows with it, by cascade). Called before every access check, off the read loop.
extension AccessStore {
    func dropRevokedGrants() throws(AccessError) {
        // Grants written up to now must show in what is read after this.
        let written = sessions.withValue { $0.batchesWritten }
        // Nothing written yet: none of this process's grants has a row to be deleted. (And a
        // session's first access check does not wait for the database to open.)
        guard written > 0 else { return }
        let changed = try read { db -> Bool in
            let version = try db.first("PRAGMA data_version") { $0.int(0) } ?? 0
            return lastDataVersion.withValue { last -> Bool in
                defer { last = version }
                return last != version
            }
        }
        guard changed else { return }
        let live = try read { db -> Set<Int64> in
            var rows = Set<Int64>()
            try db.query("SELECT id FROM grants WHERE instance = ?", [.text(instance)]) { rows.insert($0.int(0)) }
            return rows
        }
        sessions.withValue { state in
            let gone = state.grants.values.filter { grant in
                guard let row = grant.rowId, grant.writtenIn <= written else { return false }
                return !live.contains(row)
            }
            for grant in gone { state.remove(grant: grant.id) }
        }
    }
}
