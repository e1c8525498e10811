import ArgumentParser
import BLEHost

extension AttributeSelector {
    /// An attribute as a command line names it; a bad one is a usage error (exit 64).
    init(argument text: String) throws(ValidationError) {
        do throws(SyntaxError) {
            self = try AttributeSelector(parsing: text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
