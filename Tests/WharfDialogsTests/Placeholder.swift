import Testing

@Test func placeholderWharfDialogs() {}
