import WharfSystem

/// Revocations made by other processes (`wharf access revoke`, another Wharf's `revokeAccess`),
/// found by looking at the store only when it changed.
///
/// SQLite's `PRAGMA data_version` changes when another connection commits, so checking it is
/// one cheap read; only when it moved does the check read which of this process's grant rows
/// still exist, and drop the grants whose rows are gone (a revoked bookmark takes its grants'
/// rows with it, by cascade). Called before every access check, off the read loop.
///
/// A revocation is dated (`revoked_grants`): a grant the human gave again after it (the same
/// file picked again before this process looked) is a new consent, kept and written afresh;
/// one given before it goes, whichever of the two this process hears of first.
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
        let snapshot = try read { db -> (version: Int64, live: Set<Int64>, revoked: [Int64: Double])? in
            let version = try db.first("PRAGMA data_version") { $0.int(0) } ?? 0
            guard lastDataVersion.withValue({ $0 != version }) else { return nil }
            var rows = Set<Int64>()
            try db.query("SELECT id FROM grants WHERE instance = ?", [.text(instance)]) { rows.insert($0.int(0)) }
            var revoked: [Int64: Double] = [:]
            try db.query("SELECT grant_row, revoked FROM revoked_grants WHERE instance = ?", [.text(instance)]) {
                revoked[$0.int(0)] = $0.real(1)
            }
            return (version, rows, revoked)
        }
        guard let snapshot else { return }
        let (judgedAll, judged, givenAgain) = sessions.withValue { state -> (Bool, [Int64], [Int]) in
            var judgedAll = true
            var judged: [Int64] = []
            var givenAgain: [Int] = []
            for grant in state.grants.values {
                guard let row = grant.rowId, !snapshot.live.contains(row) else { continue }
                // Written by a batch that committed during this check: its row may be newer than
                // what was read. Judged at the next check, which this one leaves due.
                guard grant.writtenIn <= written else { judgedAll = false; continue }
                judged.append(row)
                if let revoked = snapshot.revoked[row], revoked < grant.latestGift.time {
                    state.renewAfterRevocation(grant.id)
                    givenAgain.append(grant.id)
                } else {
                    state.remove(grant: grant.id)
                }
            }
            return (judgedAll, judged, givenAgain)
        }
        if !judged.isEmpty {
            // The records are deleted, and the grants given again written afresh, by the next batch.
            pending.change { changes in
                changes.judgedRevocations.formUnion(judged)
                changes.grants.formUnion(givenAgain)
            }
            scheduleFlush()
        }
        if judgedAll { lastDataVersion.withValue { $0 = snapshot.version } }
    }

    /// Dates the revocation of the grants `condition` selects, for the processes holding them;
    /// called in the transaction that deletes their rows.
    static func recordRevocation(_ db: SQLiteConnection, ofGrantsWhere condition: String, _ arguments: [SQLiteValue]) throws {
        try db.run("""
            INSERT OR REPLACE INTO revoked_grants (instance, grant_row, revoked)
            SELECT instance, id, ? FROM grants WHERE \(condition)
            """, [.real(StateLocation.now())] + arguments)
    }

    /// When this instance's grant row `row` was revoked, if that was recorded.
    static func revocationTime(_ db: SQLiteConnection, of row: Int64, instance: String) throws -> Double? {
        try db.first("SELECT revoked FROM revoked_grants WHERE instance = ? AND grant_row = ?",
                     [.text(instance), .integer(row)]) { $0.real(0) }
    }

    /// Deletes the record of a revocation this instance has judged.
    static func forgetRevocation(_ db: SQLiteConnection, of row: Int64, instance: String) throws {
        try db.run("DELETE FROM revoked_grants WHERE instance = ? AND grant_row = ?", [.text(instance), .integer(row)])
    }
}
