import BLEHost
import DeviceLinks
import Testing

/// What a `SecurityRequest` offers a pairing: a passkey it was given, a person to ask, or neither.
@Suite struct SecurityRequestTests {
    struct Answers: PairingPrompter {
        func enterPasskey() async -> UInt32? { 123_456 }
        func show(passkey: UInt32) async {}
        func confirm(number: UInt32) async -> Bool { number == 42 }
    }

    @Test func aPasskeyIsTypedAPromptIsAskedAndNeitherIsJustWorks() async {
        let given = SecurityRequest(mode: .authenticate, passkey: 1234, bondDirectory: "/tmp")
        #expect(given.pairingOptions(.authenticated).ioCapability == .keyboardOnly)
        #expect(await given.pairingOptions(.authenticated).interaction.enterPasskey?() == 1234)

        let asked = SecurityRequest(mode: .authenticate, bondDirectory: "/tmp", prompter: Answers())
        let options = asked.pairingOptions(.authenticated)
        #expect(options.ioCapability == .keyboardDisplay)
        #expect(await options.interaction.enterPasskey?() == 123_456)
        #expect(await options.interaction.confirmNumber?(42) == true)
        #expect(await options.interaction.confirmNumber?(41) == false)

        let unattended = SecurityRequest(mode: .auto, bondDirectory: "/tmp")
        #expect(unattended.pairingOptions(.encrypted).ioCapability == .noInputNoOutput)
    }

    @Test func eachModeAsksForWhatItNamesAndAutoForNothingUpfront() {
        #expect(SecurityMode.encrypt.upfront == .encrypted)
        #expect(SecurityMode.authenticate.upfront == .authenticated)
        #expect(SecurityMode.auto.upfront == nil)
        #expect(SecurityMode.kernelLevel(.encrypted) == .medium)
        #expect(SecurityMode.kernelLevel(.authenticated) == .high)
    }
}
