/// The portal's bus names, object paths and interfaces (xdg-desktop-portal's documentation).
enum Portal {
    static let busName = "org.freedesktop.portal.Desktop"
    static let objectPath = "/org/freedesktop/portal/desktop"
    static let fileChooser = "org.freedesktop.portal.FileChooser"
    static let request = "org.freedesktop.portal.Request"
    static let properties = "org.freedesktop.DBus.Properties"
    static let requestPathPrefix = "/org/freedesktop/portal/desktop/request/"
}
