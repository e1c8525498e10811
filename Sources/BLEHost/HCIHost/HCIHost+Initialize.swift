import BLEWire

extension HCIHost {
    /// Events the host handles: Disconnection Complete (4), Encryption Change (7), Command Complete
    /// (13), Command Status (14), Hardware Error (15), Number Of Completed Packets (18), Data Buffer
    /// Overflow (25), Encryption Key Refresh Complete (47), LE Meta (61).
    static let eventMask: UInt64 = [4, 7, 13, 14, 15, 18, 25, 47, 61].reduce(0) { $0 | 1 << $1 }

    /// LE subevents (bit = subevent code − 1): Connection Complete, Advertising Report, Connection
    /// Update Complete, Read Remote Features Complete, Remote Connection Parameter Request, Data
    /// Length Change, Enhanced Connection Complete, PHY Update Complete, Extended Advertising Report.
    static let leEventMask: UInt64 = [0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x0A, 0x0C, 0x0D].reduce(0) {
        $0 | 1 << ($1 - 1)
    }

    /// Reset, read what the controller is and can do, set the event masks, size the ACL buffers.
    func initialize() async throws(HCIHostError) -> HCIControllerInfo {
        _ = try await execute(HCIReset())
        let version = try await execute(
            HCIReadLocalVersionInformation(),
            returning: HCIReadLocalVersionInformation.ReturnParameters.self
        )
        let commands = HCISupportedCommands(
            try await execute(
                HCIReadLocalSupportedCommands(),
                returning: HCIReadLocalSupportedCommands.ReturnParameters.self
            )
        )
        let features = try await execute(
            HCIReadLocalSupportedFeatures(),
            returning: HCIReadLocalSupportedFeatures.ReturnParameters.self
        )
        var leFeatures: UInt64 = 0
        if commands.supports(HCILEReadLocalSupportedFeatures.self) {
            leFeatures = try await execute(
                HCILEReadLocalSupportedFeatures(),
                returning: HCILEReadLocalSupportedFeatures.ReturnParameters.self
            ).leFeatures
        }
        let publicAddress = try await execute(HCIReadBDADDR(), returning: HCIReadBDADDR.ReturnParameters.self).bdAddr
        _ = try await execute(HCISetEventMask(eventMask: Self.eventMask))
        _ = try await execute(HCILESetEventMask(leEventMask: Self.leEventMask))
        let buffer = try await readBufferSize(commands)
        if configuration.suggestMaximumDataLength, commands.supports(HCILEWriteSuggestedDefaultDataLength.self) {
            do throws(HCIHostError) {
                _ = try await execute(
                    HCILEWriteSuggestedDefaultDataLength(suggestedMaxTxOctets: 251, suggestedMaxTxTime: 2120)
                )
            } catch {
                diagnose("LE Write Suggested Default Data Length: \(error)")
            }
        }
        var ownAddress = BluetoothAddress(value: publicAddress.value, type: .public)
        if configuration.forceRandomAddress || publicAddress.value == 0 {
            ownAddress = BluetoothAddress(value: configuration.staticRandomAddress.value, type: .random)
            _ = try await execute(HCILESetRandomAddress(randomAddress: ownAddress))
        }
        let info = HCIControllerInfo(
            hciVersion: version.hciVersion,
            manufacturer: version.companyIdentifier,
            supportedCommands: commands,
            lmpFeatures: features.lmpFeatures,
            leFeatures: leFeatures,
            publicAddress: publicAddress,
            ownAddress: ownAddress,
            aclDataLength: buffer.length,
            aclPacketCount: buffer.count,
            bufferSource: buffer.source,
            extendedScanning: ScanCommands.extendedSupported(by: commands),
            extendedConnect: commands.supports(HCILEExtendedCreateConnection.self)
        )
        state.withLock { state in
            state.controller = info
            state.ownAddressType = ownAddress.type == .random ? 1 : 0
            state.flow.configure(length: buffer.length, count: buffer.count)
        }
        return info
    }

    /// LE Read Buffer Size v2 when supported, else v1; the shared BR/EDR buffer when LE reports none.
    private func readBufferSize(
        _ commands: HCISupportedCommands
    ) async throws(HCIHostError) -> (length: Int, count: Int, source: HCIControllerInfo.BufferSource) {
        var length = 0
        var count = 0
        var source = HCIControllerInfo.BufferSource.leReadBufferSizeV1
        if commands.supports(HCILEReadBufferSizeV2.self) {
            let answer = try await execute(
                HCILEReadBufferSizeV2(),
                returning: HCILEReadBufferSizeV2.ReturnParameters.self
            )
            (length, count, source) = (
                Int(answer.leACLDataPacketLength), Int(answer.totalNumLEACLDataPackets), .leReadBufferSizeV2
            )
        } else {
            let answer = try await execute(HCILEReadBufferSize(), returning: HCILEReadBufferSize.ReturnParameters.self)
            (length, count) = (Int(answer.leACLDataPacketLength), Int(answer.totalNumLEACLDataPackets))
        }
        if length == 0 || count == 0 {
            let shared = try await execute(HCIReadBufferSize(), returning: HCIReadBufferSize.ReturnParameters.self)
            (length, count, source) = (
                Int(shared.aclDataPacketLength), Int(shared.totalNumACLDataPackets), .sharedReadBufferSize
            )
        }
        guard length >= 27, count >= 1 else {
            throw .unsupported("an ACL buffer of at least 27 octets (controller reports \(count) × \(length))")
        }
        return (length, count, source)
    }
}
