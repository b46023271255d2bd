import type { FaultEffect } from './captured-request.js';

// What an injected fault did to a request, as the request log answers it (sandbox/v1/requests and requests/get, and
// through them `logs tail` and the console): the effect, and one sentence a partner reads without the docs.

export interface FaultView extends FaultEffect {
  text: string;
}

/** Who injected it, as the end of the sentence says. */
const BY: Record<FaultEffect['by'], string> = {
  faults: 'a fault of sandbox/v1/faults',
  readiness: 'the readiness run',
};

/** `1,500 ms` below 10 s, else `12.3 s`. */
function duration(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms).toLocaleString('en-US')} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function waitText(wait: NonNullable<FaultEffect['wait']>): string {
  const held = wait.kind === 'latency' ? `delayed ${duration(wait.ms)} by a latency` : `held ${duration(wait.ms)}`;
  switch (wait.ended) {
    case 'elapsed':
      return held;
    case 'released':
      return `${held} until released (faults/release, faults/clear or reset)`;
    case 'gone':
      return `${held}; the client went away first, so the operation never ran`;
    case 'deleted':
      return `${held}; its sandbox was deleted meanwhile, so the operation never ran`;
    case 'stopping':
      return `${held}; the instance holding it began to stop, so the operation never ran (503, retry)`;
  }
}

const ANSWER: Record<FaultEffect['answer'], string> = {
  sent: '',
  injected: 'answered by the fault itself: the operation never ran',
  dropped: 'its answer was dropped: the operation ran and committed, and the client got no answer (connection reset)',
};

/** The stored JSON of an effect as the API answers it; null when no fault touched the request. */
export function faultView(json: string | null): FaultView | null {
  if (json === null) return null;
  const effect = JSON.parse(json) as FaultEffect;
  const parts = [effect.wait && waitText(effect.wait), ANSWER[effect.answer]].filter(Boolean);
  const text = `${parts.join(', then ')} (${BY[effect.by]})`;
  return { ...effect, text: text.charAt(0).toUpperCase() + text.slice(1) };
}
