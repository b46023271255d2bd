import type { FC } from 'hono/jsx';
import { done, failed, type Ctx } from '../../page.js';
import { ActionButton, FormPanel } from '../../ui.js';
import { simulation, TO, type FormProps } from './simulation.js';

// Faults: rules that make the account's next calls fail, slow down or lose their answer (sandbox/v1/faults).

const EXAMPLE = '[{"path": "/v1/card/create", "count": 1, "respond": {"httpStatus": 500, "code": 9999}}]';

export const Faults: FC<FormProps> = ({ csrf, values }) => (
  <FormPanel
    id="f-faults"
    title="Faults"
    action={`${TO}/faults`}
    csrf={csrf}
    submit="Set faults"
    after={
      <>
        <div class="actions">
          <ActionButton action={`${TO}/faults/release`} label="Release held requests" csrf={csrf} kind="secondary" />
          <ActionButton action={`${TO}/faults/clear`} label="Remove faults" csrf={csrf} kind="secondary" />
        </div>
      </>
    }
  >
    <div class="field">
      <label for="fault-rules">Rules (JSON)</label>
      <textarea id="fault-rules" name="rules" spellcheck={false} aria-describedby="fault-hint">
        {values.rules ?? EXAMPLE}
      </textarea>
      <span class="hint" id="fault-hint">
        Each rule: path, count, and one of latencyMs (wall time), respond {'{httpStatus, code, message}'}, dropResponse,
        hold (until released)
      </span>
    </div>
  </FormPanel>
);

export async function setFaults(c: Ctx) {
  const text = (c.get('form').rules ?? '').trim();
  // The rules go to the API as the text typed, never parsed here: the API bounds their size and nesting first
  // (5,000 nested brackets parsed and serialised again in this process overflowed its stack). Text that is not a
  // JSON array is sent as a string, so the API's answer names the problem ("rules must be an array").
  const body = text.startsWith('[') ? `{"rules":${text}}` : JSON.stringify({ rules: text });
  const answer = await c.get('api').postText('/sandbox/v1/faults', body);
  return answer.ok ? done(c, TO, { title: 'Faults set' }) : failed(c, TO, 'Faults not set', answer, 'faults');
}

export const removeFaults = simulation({
  form: 'faults/clear',
  path: '/sandbox/v1/faults/clear',
  body: () => ({}),
  done: () => ({ title: 'Faults cleared' }),
  refused: 'Faults not cleared',
});

export const releaseHeld = simulation({
  form: 'faults/release',
  path: '/sandbox/v1/faults/release',
  body: () => ({}),
  done: ({ released }) => ({
    title: released === 1 ? '1 held request released' : `${released} held requests released`,
  }),
  refused: 'Held requests not released',
});
