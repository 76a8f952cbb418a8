import WharfSystem

// wharf-desktop-rig: the parts of the rig that are not tests (Tests/desktop/rig.sh).
//   measure               bus latency: a call into WharfDesktopDialogs → OpenFile on the bus
//   screenshots DIR       the portal, zenity and kdialog dialogs opened through the module
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "measure":
    Measure.run()
case "screenshots":
    Screenshots.run(into: arguments.dropFirst().first ?? "docs/screenshots")
default:
    print("usage: wharf-desktop-rig measure | screenshots DIR")
}
