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
        // The version is read before the rows (a commit between the two shows in the rows and
        // is looked at again next time), and counted as seen only once its drops are made: a
        // check running beside this one, or after a failed read, must not take it as handled.
        let snapshot = try read { db -> (version: Int64, live: Set<Int64>)? in
            let version = try db.first("PRAGMA data_version") { $0.int(0) } ?? 0
            guard lastDataVersion.withValue({ $0 != version }) else { return nil }
            var rows = Set<Int64>()
            try db.query("SELECT id FROM grants WHERE instance = ?", [.text(instance)]) { rows.insert($0.int(0)) }
            return (version, rows)
        }
        guard let snapshot else { return }
        let judgedAll = sessions.withValue { state -> Bool in
            var judgedAll = true
            let gone = state.grants.values.filter { grant in
                guard let row = grant.rowId else { return false }
                // Written by a batch that committed during this check: its row may be newer than
                // what was read. Judged at the next check, which this one leaves due.
                guard grant.writtenIn <= written else { judgedAll = false; return false }
                return !snapshot.live.contains(row)
            }
            for grant in gone { state.remove(grant: grant.id) }
            return judgedAll
        }
        if judgedAll { lastDataVersion.withValue { $0 = snapshot.version } }
    }
}
