import type { Mismatch } from './match.js';

/** What running a file produced, step by step, for the reports. */
export interface StepFailure {
  message: string;
  curl?: string;
  diff?: Mismatch[];
  /** The response body (or the webhook deliveries seen), for context. */
  actual?: unknown;
}

export interface StepResult {
  label: string;
  file: string;
  line: number;
  ok: boolean;
  skipped?: boolean;
  ms: number;
  failure?: StepFailure;
}

export interface FileResult {
  file: string;
  name: string;
  ok: boolean;
  ms: number;
  steps: StepResult[];
  /** True when no contract registry was available, so responses were not validated against contracts. */
  contractsSkipped: boolean;
}

/** A step's failure, thrown from deep inside a step and turned into its result. */
export class StepFailed extends Error {
  constructor(readonly failure: StepFailure) {
    super(failure.message);
  }
}
