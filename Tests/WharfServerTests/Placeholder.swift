import Testing

@Test func placeholderWharfServer() {}
