import RigJournal
import ServiceLifecycle

/// The journal's writer and checkpointer (their own threads) as a service: they commit until the rig
/// shuts down, when the writer commits what is pending and closes.
struct JournalCommits: Service {
    let writer: JournalWriter

    func run() async {
        try? await gracefulShutdown()
        await writer.close()
    }
}
