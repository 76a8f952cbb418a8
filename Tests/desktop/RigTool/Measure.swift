enum Measure { static func run() { print("measure: todo") } }
