import { describe, expect, it } from 'vitest';
import { validateBody, type Body } from '../../src/http/request-schema.js';

// One source for request validation: the request schemas of contracts/ decide, and the message is the
// sandbox's own ("amount is required", "cardId must be a string"), the first failing field in schema order.

function messageOf(operation: string, body: Body): string | undefined {
  try {
    validateBody(operation, body);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const AMOUNT6 = 'must be a number greater than 0, at most 1000000000, with at most 6 decimal places';
// Authorize takes 0 (an account verification), so its amount is "at least 0"; refund and clear take more than 0.
const AMOUNT2 = 'must be a number at least 0, at most 1000000000, with at most 2 decimal places';
const AMOUNT2_POSITIVE = 'must be a number greater than 0, at most 1000000000, with at most 2 decimal places';

describe('request validation from contracts/', () => {
  it.each<[string, Body, string | undefined]>([
    ['POST /v1/card/create', {}, 'amount is required'],
    ['POST /v1/card/create', { amount: '50', currency: 'USDT' }, 'amount must be a JSON number'],
    ['POST /v1/card/create', { amount: null, currency: 'USDT' }, 'amount is required'],
    ['POST /v1/card/create', { amount: 50 }, 'currency is required'],
    ['POST /v1/card/create', { amount: 50, currency: 'USD' }, 'currency must be one of USDT'],
    ['POST /v1/card/create', { amount: 10.0000001, currency: 'USDT' }, `amount ${AMOUNT6}`],
    ['POST /v1/card/create', { amount: 0, currency: 'USDT' }, `amount ${AMOUNT6}`],
    ['POST /v1/card/create', { amount: 1e9 + 1, currency: 'USDT' }, `amount ${AMOUNT6}`],
    ['POST /v1/card/create', { amount: 50, currency: 'USDT', alias: null }, 'alias must be a string, or left out'],
    [
      'POST /v1/card/create',
      { amount: 50, currency: 'USDT', alias: 'x'.repeat(257) },
      'alias must be at most 256 characters',
    ],
    ['POST /v1/card/create', { amount: 999999999.999999, currency: 'USDT', extra: 1 }, undefined],
    ['POST /v1/card/deposit', { amount: 'x' }, 'cardId is required'],
    ['POST /v1/card/deposit', { cardId: 5, amount: 1 }, 'cardId must be a string'],
    ['POST /v1/card/deposit', { cardId: '', amount: 1 }, 'cardId must not be empty'],
    ['POST /v1/card/list', { status: 'DELETED' }, 'status must be one of ACTIVE, FROZEN, CANCELLING, CANCELLED'],
    ['POST /v1/card/list', { status: 'CANCELLING' }, undefined],
    ['POST /v1/bill/list', { pageSize: 101 }, 'pageSize must be an integer between 1 and 100'],
    ['POST /v1/bill/list', { pageNumber: 0 }, 'pageNumber must be an integer between 1 and 9007199254740991'],
    ['POST /v1/wallet/getAddress', { currency: 'USDT', network: 'ETH' }, 'network must be one of TRX'],
    ['POST /sandbox/v1/card/authorize', { cardId: 'c', amount: 0 }, undefined],
    ['POST /sandbox/v1/card/authorize', { cardId: 'c', amount: 10.07 }, undefined],
    ['POST /sandbox/v1/card/authorize', { cardId: 'c', amount: 1.001 }, `amount ${AMOUNT2}`],
    [
      'POST /sandbox/v1/card/authorize',
      { cardId: 'c', amount: 1, merchantCountry: 'usa' },
      'merchantCountry must be an ISO 3166 alpha-2 code',
    ],
    ['POST /sandbox/v1/transaction/refund', { transactionId: 't', amount: 0.001 }, `amount ${AMOUNT2_POSITIVE}`],
    ['POST /sandbox/v1/reset', { balance: 0 }, `balance ${AMOUNT6}`],
    ['POST /sandbox/v1/3ds/verify', { challengeId: 'c', otp: '1'.repeat(17) }, 'otp must be at most 16 characters'],
    ['POST /sandbox/v1/events', { limit: 1001 }, 'limit must be an integer between 1 and 1000'],
    ['POST /sandbox/v1/clock', { advanceSeconds: -1 }, 'advanceSeconds must be a number between 0 and 315360000'],
    ['POST /sandbox/v1/chain/transfer', { amount: 1, txId: 'abc' }, 'txId must be 64 hexadecimal characters'],
    ['POST /sandbox/v1/faults', {}, 'rules is required'],
    ['POST /sandbox/v1/faults', { rules: {} }, 'rules must be an array'],
    [
      'POST /sandbox/v1/faults',
      { rules: [{ path: '/v1/card/asset' }] },
      'rules[0] needs latencyMs, hold, respond or dropResponse',
    ],
    [
      'POST /sandbox/v1/faults',
      { rules: [{ path: '/v1/x', respond: { httpStatus: 500, code: 1 }, dropResponse: true }] },
      'rules[0] cannot both respond and drop the response',
    ],
    [
      'POST /sandbox/v1/faults',
      { rules: [{ path: '/v1/x', respond: { httpStatus: 500 } }] },
      'rules[0].respond needs httpStatus (400-599) and code',
    ],
    [
      'POST /sandbox/v1/faults',
      { rules: [{ path: 'v1/x', latencyMs: 5 }] },
      'rules[0].path must be a full request path such as /v1/card/deposit',
    ],
    [
      'POST /sandbox/v1/faults',
      { rules: [{ path: '/v1/x', count: 1e6 + 1, latencyMs: 1 }] },
      'rules[0].count must be an integer between 1 and 1000000',
    ],
    [
      'POST /admin/v1/accounts',
      { depositFeeRate: '1.5' },
      'depositFeeRate must be a decimal in [0, 1) with at most 6 places, e.g. "0.02"',
    ],
    ['POST /admin/v1/accounts', { depositFeeRate: '0.020000' }, undefined],
    [
      'POST /admin/v1/accounts',
      { depositAddress: 'nope' },
      'depositAddress must be "auto", null or a TRON base58 address',
    ],
  ])('%s %j -> %s', (operation, body, message) => {
    expect(messageOf(operation, body)).toBe(message);
  });

  it('refuses unknown fields of the simulation and operator APIs, naming them', () => {
    expect(messageOf('POST /sandbox/v1/clock', { advanceSecond: 3600 })).toBe(
      'advanceSecond: unknown field (did you mean advanceSeconds?)',
    );
    expect(messageOf('POST /sandbox/v1/card/authorize', { cardId: 'c', amount: 1, merchant: 'SHOP' })).toBe(
      'merchant: unknown field (did you mean merchantName?)',
    );
    expect(messageOf('POST /sandbox/v1/faults', { rules: [{ path: '/v1/x', latency: 5 }] })).toBe(
      'rules[0].latency: unknown field (did you mean latencyMs?)',
    );
    expect(messageOf('PUT /admin/v1/bins/{binId}', { fee: { deposit: '0.01', atmFee: '1' } })).toBe(
      'fee.atmFee: unknown field (it takes deposit, fx, card, atm)',
    );
  });
});
