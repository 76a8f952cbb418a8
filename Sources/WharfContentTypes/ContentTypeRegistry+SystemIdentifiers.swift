extension ContentTypeRegistry {
    /// The identifiers Wharf declares itself, in declaration order. Shell completions offer
    /// these (generated from this list, so they never name a type Wharf does not know).
    public static var systemIdentifiers: [String] { systemTypeDeclarations.map(\.identifier) }
}
