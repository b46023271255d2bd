import { describe, expect, it } from 'vitest';
import { hasContract, validateEvent, validateRequest, validateResponse } from '../../src/contracts/registry.js';

const card = {
  cardId: '2026060112345678901234',
  binId: 'VISA-EFI-454924',
  cardStatus: 'ACTIVE',
  maskedCardNo: '**** **** **** 1234',
  cardBrand: 'Visa',
  openFee: 0,
};

describe('contract registry', () => {
  it('finds routes with path parameters and query strings, and only those the contracts list', () => {
    expect(hasContract('POST', '/v1/card/create')).toBe(true);
    expect(hasContract('post', '/v1/card/create?x=1')).toBe(true);
    expect(hasContract('GET', '/admin/v1/accounts/acc_123')).toBe(true);
    expect(hasContract('DELETE', '/admin/v1/accounts/acc_1/keys/key_1')).toBe(true);
    expect(hasContract('GET', '/v1/card/create')).toBe(false);
    expect(hasContract('POST', '/v1/card/nope')).toBe(false);
  });

  it('is lenient about extra properties by default and flags them with strict, naming the property', () => {
    expect(validateResponse('POST', '/v1/card/create', 200, { ...card, extra: 1 })).toEqual([]);
    const [v] = validateResponse('POST', '/v1/card/create', 200, { ...card, extra: 1 }, { strict: true });
    expect(v).toMatchObject({
      schemaId: expect.stringContaining('api/card/create.response.json'),
      instancePath: '',
      message: expect.stringContaining('extra'),
    });
  });

  it('types amounts as the spec states: decimal strings in card/asset, numbers in card/list', () => {
    const asset = { availableAmount: '49', frozenAmount: '0', currency: 'USD' };
    expect(validateResponse('POST', '/v1/card/asset', 200, asset)).toEqual([]);
    expect(validateResponse('POST', '/v1/card/asset', 200, { ...asset, availableAmount: 49 })[0].instancePath).toBe(
      '/availableAmount',
    );
    const item = {
      cardId: 'c',
      binId: 'b',
      cardStatus: 'ACTIVE',
      maskedCardNo: '************1234',
      availableBalance: '49',
      frozenAmount: 0,
      currency: 'USD',
    };
    expect(validateResponse('POST', '/v1/card/list', 200, { cardList: [item] })[0].instancePath).toBe(
      '/cardList/0/availableBalance',
    );
  });

  it('judges errors by status: the error body, 11002 on 401, an empty 403, and unlisted success statuses', () => {
    expect(validateResponse('POST', '/v1/card/create', 400, { code: 4004, message: 'Card BIN not found' })).toEqual([]);
    expect(validateResponse('POST', '/v1/card/create', 400, { code: 0, message: 'ok' })).not.toEqual([]);
    expect(validateResponse('POST', '/v1/card/create', 401, { code: 400, message: 'x' })).not.toEqual([]);
    expect(validateResponse('POST', '/v1/card/create', 403, undefined)).toEqual([]);
    expect(validateResponse('POST', '/v1/card/create', 503, { code: 9999, message: 'later' })).toEqual([]);
    expect(validateResponse('POST', '/v1/card/create', 201, card)[0].message).toMatch(/not a status/);
  });

  it('validates requests: card/create needs a JSON number amount and currency USDT', () => {
    expect(validateRequest('POST', '/v1/card/create', { amount: 50, currency: 'USDT' })).toEqual([]);
    expect(validateRequest('POST', '/v1/card/create', { amount: '50', currency: 'USDT' })).not.toEqual([]);
    expect(validateRequest('POST', '/v1/card/create', { amount: 50 })).not.toEqual([]);
    expect(validateRequest('GET', '/v1/webhook', undefined)).toEqual([]);
  });

  it('validates events: the envelope, then the data of the type', () => {
    const e = { id: 'evt_abc', type: 'card.frozen', created: 1780000000, data: { cardId: 'c' } };
    expect(validateEvent(e, { strict: true })).toEqual([]);
    expect(validateEvent({ ...e, id: 'abc' })[0].instancePath).toBe('/id');
    expect(validateEvent({ ...e, data: {} })[0].instancePath).toBe('/data');
    expect(validateEvent({ ...e, extra: true }, { strict: true })).not.toEqual([]);
    expect(validateEvent({ ...e, type: 'card.exploded' })[0].instancePath).toBe('/type');
  });

  it('shows the webhook secret only where the spec allows it', () => {
    const config = {
      configured: true,
      url: 'https://example.com/hook',
      enabled: true,
      deliver3dsCode: false,
      secretPrefix: 'whsec_abcdefgh',
    };
    expect(validateResponse('GET', '/v1/webhook', 200, config, { strict: true })).toEqual([]);
    expect(validateResponse('GET', '/v1/webhook', 200, { configured: false }, { strict: true })).toEqual([]);
    expect(validateResponse('GET', '/v1/webhook', 200, { ...config, secret: 'whsec_x' })).not.toEqual([]);
    expect(validateResponse('PUT', '/v1/webhook', 200, { ...config, secret: 'whsec_x' }, { strict: true })).toEqual([]);
    expect(validateResponse('POST', '/v1/webhook/rotate-secret', 200, { ...config }, { strict: true })).not.toEqual([]);
  });
});
