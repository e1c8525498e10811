/// The status page's HTML, script and style, compiled into the binary (`Page/`): a rig deploys as one
/// file and serves the page offline, with no CDN.
enum StatusPageAssets {
    static var index: [UInt8] { PackageResources.index_html }
    static var script: [UInt8] { PackageResources.app_js }
    static var style: [UInt8] { PackageResources.style_css }
}
