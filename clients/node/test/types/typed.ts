// Type test, compiled by `tsc --strict --noEmit` (make test-clients): what the declarations
// promise about requests, events and presentations. Each `@ts-expect-error` line proves a
// mistake is rejected: if it ever compiles, tsc fails on the unused directive.
import {
  WharfClient, Dialog, DialogEvent, Presentation, RequestResult, DirectoryListing, InitializeResult, PresenterKind,
  WharfTimeout, WharfError, DEFAULT_REQUEST_TIMEOUT_MS, urlToPath,
} from '../../index.js';

declare const client: WharfClient;
declare const dialog: Dialog;
declare const presentation: Presentation;

async function requests(): Promise<void> {
  // Results are typed by method.
  const listing: DirectoryListing = await client.request('dialog/list', { dialogId: 'dlg-1', limit: 10 });
  const shown: { dialogId: string } = await client.request('presentImporter', { allowedContentTypes: ['public.image'] });
  const conforms: boolean = (await client.request('contentTypes/conforms', { identifier: 'public.png', to: 'public.image' })).conforms;
  const initialized: InitializeResult = await client.request('initialize', { capabilities: { presentsDialogs: true, prefersDesktopDialogs: true } });
  const presenter: PresenterKind | null | undefined = initialized.capabilities.presenter;
  const ping: Record<string, never> = await client.request('ping');
  await client.request('shutdown');
  await client.request('shutdown', null);
  const declared: RequestResult<'contentTypes/declare'> = { declared: ['com.example.notes'] };
  // A method outside the map takes and gives unknown.
  const other: unknown = await client.request('x-experimental/thing', { anything: 1 });
  client.notify('$/cancelRequest', { id: 3 });
  client.notify('exit');
  const mover: { dialogId: string } = await client.request('presentMover', { urls: ['file:///tmp/a.txt'], options: { title: 'Move to' } });
  await client.request('dialog/choose', { dialogId: mover.dialogId, url: 'file:///tmp', conflictResolution: 'keepBoth' });
  const moving: Dialog = await client.presentMover(['file:///tmp/a.txt'], { confirmationLabel: 'Move' });
  await presentation.move('file:///tmp', { conflictResolution: 'replace' });
  const files: string[] = presentation.moverUrls;
  void [listing, shown, conforms, presenter, ping, declared, other, moving, files];

  // @ts-expect-error: dialog/list needs dialogId
  await client.request('dialog/list', { limit: 10 });
  // @ts-expect-error: limit is a number
  await client.request('dialog/list', { dialogId: 'dlg-1', limit: '10' });
  // @ts-expect-error: a conflict is settled by replacing or keeping both, nothing else
  await presentation.move('file:///tmp', { conflictResolution: 'overwrite' });
  // @ts-expect-error: presentImporter's params are required
  await client.request('presentImporter');
  // @ts-expect-error: allowedContentTypes is an array of identifiers
  await client.request('presentImporter', { allowedContentTypes: 'public.image' });
  // @ts-expect-error: dialog/choose takes urls or url, not paths
  await client.request('dialog/choose', { dialogId: 'dlg-1', paths: ['/tmp/a.png'] });
  // @ts-expect-error: cancel answers {cancelled}, not a boolean
  const wrong: boolean = await client.request('cancel', { dialogId: 'dlg-1' });
  // @ts-expect-error: $/cancelRequest needs the id
  client.notify('$/cancelRequest', {});
  // @ts-expect-error: initialize's trace is off, messages or verbose
  await client.request('initialize', { trace: 'loud' });
  void wrong;
}

function events(event: DialogEvent): void {
  // DialogEvent is a union on kind: params are typed by kind.
  switch (event.kind) {
    case 'presentationChanged': {
      const presented: boolean = event.params.isPresented;
      void presented;
      break;
    }
    case 'progress': {
      const written: number = event.params.bytesWritten;
      void written;
      break;
    }
    case 'completed':
      if ('urls' in event.params) {
        const urls: string[] = event.params.urls;
        void urls;
      } else {
        const code: number = event.params.error.code;
        void code;
      }
      break;
    case 'cancelled': {
      const reason: 'user' | 'client' | 'timeout' | 'disconnected' = event.params.reason;
      void reason;
      break;
    }
    case 'disconnected':
      break;
  }
  // @ts-expect-error: a progress event has no reason
  const reason: string = (event.kind === 'progress' ? event.params.reason : '');
  // @ts-expect-error: params are not a bag of anything
  const anything: number = event.params.whatever;
  void [reason, anything];
}

function presentations(): void {
  const filenames: string[] = presentation.filenames;
  const count: number = presentation.documentCount;
  const kind: 'importer' | 'exporter' | 'mover' = presentation.params.kind;
  // @ts-expect-error: documentCount is a number
  const wrongCount: string = presentation.documentCount;
  void [filenames, count, kind, wrongCount];
}

async function dialogs(): Promise<void> {
  const urls: string[] = await dialog.result();
  const waited: string[] = await dialog.result({ timeoutMs: 5_000 });
  const final: DialogEvent = await dialog.finalEvent({ timeoutMs: Infinity });
  // @ts-expect-error: timeoutMs is a number of milliseconds
  await dialog.result({ timeoutMs: '5s' });
  // @ts-expect-error: the options are an object
  await dialog.finalEvent(5_000);
  void [waited, final];
  for await (const event of dialog) {
    if (event.kind === 'completed' && 'contentTypes' in event.params) void event.params.contentTypes;
  }
  client.on('notification', (method, params) => void [method, params]);
  void urls;
}

async function timeouts(): Promise<void> {
  const spawned = await WharfClient.spawn({ requestTimeoutMs: 10_000 });
  spawned.requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  try {
    await spawned.ping();
  } catch (error) {
    if (error instanceof WharfTimeout) {
      const base: WharfError = error;
      void base;
    }
  }
  // @ts-expect-error: requestTimeoutMs is a number of milliseconds
  await WharfClient.spawn({ requestTimeoutMs: '10s' });
}

async function paths(): Promise<void> {
  // The path to open may be a Buffer (a name that is not UTF-8): string code must check first.
  const path: string | Buffer = urlToPath('file:///tmp/x%FF.txt');
  // @ts-expect-error: not always a string
  const text: string = urlToPath('file:///tmp/x%FF.txt');
  const size: number = await client.withAccess('file:///tmp/a.txt', (opened) => {
    // @ts-expect-error: not always a string
    opened.endsWith('.txt');
    return typeof opened === 'string' ? opened.length : opened.byteLength;
  });
  void [path, text, size];
}

void [requests, events, presentations, dialogs, timeouts, paths];
