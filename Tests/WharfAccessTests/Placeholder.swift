import Testing

@Test func placeholderWharfAccess() {}
