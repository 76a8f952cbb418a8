// The declarations (index.d.ts, framing.d.ts) checked against the JavaScript itself: the
// implementation, typed by TypeScript from the code and its JSDoc (`checkJs`), must be
// assignable to what the declarations promise, export by export.
import * as framingImplementation from '../../src/framing.js';
import * as implementation from '../../src/index.js';
import type * as declared from '../../index.js';
import type * as declaredFraming from '../../framing.js';

export const api: typeof declared = implementation;
export const framing: typeof declaredFraming = framingImplementation;
