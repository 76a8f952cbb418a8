/// Every message of the protocol, by type: what the server's method table is built from, and
/// what the test suite checks protocol/wharf.schema.json against.
public enum ProtocolCatalog {
    public static let requests: [any RequestMessage.Type] = [
        InitializeRequest.self, ShutdownRequest.self, PingRequest.self,
        DescribeTypesRequest.self, IdentifyRequest.self, ConformsRequest.self, TypeForExtensionRequest.self,
        TypeForMIMETypeRequest.self, DeclareTypesRequest.self, FiltersRequest.self,
        PresentImporterRequest.self, PresentExporterRequest.self, PresentMoverRequest.self, CancelDialogRequest.self, ExporterSnapshotRequest.self,
        ListDirectoryRequest.self, ChooseRequest.self, DismissRequest.self, FailDialogRequest.self,
        ResolveAccessRequest.self, ReleaseAccessRequest.self, CreateBookmarkRequest.self, ListAccessRequest.self,
        RevokeAccessRequest.self, ReadFileRequest.self, WriteFileRequest.self,
    ]

    public static let notifications: [any NotificationMessage.Type] = [
        InitializedNotification.self, ExitNotification.self, CancelRequestNotification.self, SetTraceNotification.self,
        LogTraceNotification.self, PresentationChangedNotification.self, DialogCompletedNotification.self,
        DialogCancelledNotification.self, DialogProgressNotification.self, PresenterShowNotification.self,
        PresenterHideNotification.self,
    ]
}
