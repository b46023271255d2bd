import { describe, expect, it } from 'vitest';
import { ConformanceCheck, formatFindings } from '../../src/contracts/conformance.js';

const json = (status: number, body: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
const post = (path: string, body: unknown = { cardId: 'c' }) =>
  new Request(`http://sandbox${path}`, { method: 'POST', body: JSON.stringify(body) });

describe('self-conformance check', () => {
  it('passes a response that matches its contract and hands the caller an unread body', async () => {
    const check = new ConformanceCheck();
    const fetch = check.wrapFetch(() => json(200, { code: 0, message: 'ok' }));
    const res = await fetch(post('/v1/card/freeze'));
    expect(await res.json()).toEqual({ code: 0, message: 'ok' });
    expect(check.take()).toEqual([]);
  });

  it('reports drift: a property the contract lacks, with the route, status, schema and instance path', async () => {
    const check = new ConformanceCheck();
    await check.wrapFetch(() => json(200, { availableAmount: '1', frozenAmount: '0', currency: 'USD', balance: 1 }))(
      post('/v1/card/asset'),
    );
    const [finding] = check.take();
    expect(finding.subject).toBe('POST /v1/card/asset -> 200');
    expect(formatFindings([finding])).toMatch(/unevaluated properties \(balance\).*card\/asset\.response\.json/);
  });

  it('reports a wrong type (a number where the spec says decimal string) and a success on a route with no contract', async () => {
    const check = new ConformanceCheck();
    await check.wrapFetch(() => json(200, { availableAmount: 1, frozenAmount: '0', currency: 'USD' }))(
      post('/v1/card/asset'),
    );
    await check.wrapFetch(() => json(200, { ok: true }))(post('/v1/card/teleport'));
    const findings = check.take();
    expect(findings.map((f) => f.violations[0].instancePath)).toEqual(['/availableAmount', '']);
    expect(findings[1].violations[0].message).toBe('no contract for POST /v1/card/teleport');
  });

  it('holds errors of unknown routes to the error body, and ignores the API reference pages', async () => {
    const check = new ConformanceCheck();
    await check.wrapFetch(() => json(404, { code: 404, message: 'No route' }))(post('/v1/nope'));
    await check.wrapFetch(() => new Response('<html>', { status: 200 }))(new Request('http://sandbox/docs'));
    expect(check.take()).toEqual([]);
    await check.wrapFetch(() => json(404, { error: 'nope' }))(post('/v1/nope'));
    expect(check.take()).toHaveLength(1);
  });

  it('reports a request the sandbox accepted although its contract refuses it (the sandbox is never more lenient)', async () => {
    const check = new ConformanceCheck();
    await check.wrapFetch(() => json(200, { code: 0, message: 'ok' }))(
      post('/v1/card/deposit', { cardId: 'c', amount: '10' }),
    );
    const [finding] = check.take();
    expect(finding.subject).toBe('POST /v1/card/deposit accepted a request its contract refuses');
    expect(finding.violations[0].instancePath).toBe('/amount');
    await check.wrapFetch(() => json(400, { code: 400, message: 'amount must be a JSON number' }))(
      post('/v1/card/deposit', { cardId: 'c', amount: '10' }),
    );
    expect(check.take()).toEqual([]);
  });

  it('reports an answer that is not JSON', async () => {
    const check = new ConformanceCheck();
    await check.wrapFetch(() => new Response('oops', { status: 500 }))(post('/v1/card/list'));
    expect(check.take()[0].violations[0].message).toBe('body is not JSON');
  });

  it('checks events: envelope and data of the type', () => {
    const check = new ConformanceCheck();
    check.event({ id: 'evt_1', type: 'card.frozen', created: 1, data: { cardId: 'c' } });
    expect(check.take()).toEqual([]);
    check.event({ id: 'evt_1', type: 'card.frozen', created: '1', data: { cardId: 'c' } });
    expect(check.take()[0].subject).toBe('event card.frozen evt_1');
  });
});
