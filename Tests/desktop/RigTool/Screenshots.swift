enum Screenshots { static func run(into: String) { print("screenshots: todo") } }
