import { ConformanceCheck } from '../../src/contracts/conformance.js';

/** The one check of this test worker: the sandbox helper feeds it, the setup file's afterEach reads it. */
export const conformance = new ConformanceCheck({ strict: true });
