public import BLEWire

/// The GATT attribute types the engines need (Bluetooth Assigned Numbers §3.5–3.8).
public enum GATTUUID {
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)
    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    public static let genericAttributeService = BluetoothUUID(0x1801)
    public static let serviceChanged = BluetoothUUID(0x2A05)
}
