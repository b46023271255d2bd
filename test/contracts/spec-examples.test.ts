import { describe, expect, it } from 'vitest';
import { validateEvent, validateResponse } from '../../src/contracts/registry.js';

// Shapes the spec allows (or forbids), table-driven: the contracts must accept what any faithful implementation
// may answer, not only what this sandbox answers.

const bin = {
  id: 'VISA-EFI-454924',
  title: 'Ether Card',
  cardNetwork: 'Visa',
  fee: { deposit: '0.02', fx: '0.006', card: '0', atm: '0.02' },
  limit: { spendDaily: '100000', minimalDeposit: '1' },
  enabled: true,
};
const txnEvent = {
  transactionId: 'txn_1',
  cardId: 'c',
  status: 'PENDING',
  billAmount: 12.5,
  billCurrency: 'USD',
  transactionAmount: 12.5,
  transactionCurrency: 'USD',
  merchantName: 'Coffee',
  merchantCountry: 'US',
  mccCategory: 'Restaurants',
  eventType: 'SPEND',
  settledAt: '2026-06-01T12:00:00',
};

const accepted: [string, string, string, unknown][] = [
  [
    'a balance entry with frozenAmount omitted',
    'POST',
    '/v1/wallet/assetList',
    { assetList: [{ currency: 'USDT', availableAmount: '10', assetType: 'CRYPTO', status: 'ACTIVE' }] },
  ],
  [
    'a zero entry with nulls and active false',
    'POST',
    '/v1/wallet/assetList',
    {
      code: 0,
      message: 'ok',
      assetList: [
        {
          currency: 'USDC',
          availableAmount: '0',
          frozenAmount: null,
          assetType: 'CRYPTO',
          status: null,
          active: false,
        },
      ],
    },
  ],
  ['a BIN without the extended bin digits', 'POST', '/v1/card/binList', { availableCardBinList: [bin] }],
  [
    'a create answer masked as groups of asterisks',
    'POST',
    '/v1/card/create',
    { cardId: '1', binId: 'b', cardStatus: 'ACTIVE', maskedCardNo: '**** **** **** 1234', cardBrand: 'Visa' },
  ],
  [
    'a create answer masked as the last four only',
    'POST',
    '/v1/card/create',
    { cardId: '1', binId: 'b', cardStatus: 'ACTIVE', maskedCardNo: '1234', cardBrand: 'Visa', openFee: 0 },
  ],
  [
    'a card list with code and message beside the data',
    'POST',
    '/v1/card/list',
    { code: 0, message: 'ok', cardList: [] },
  ],
  ['an empty bill page', 'POST', '/v1/bill/list', { transactions: [], last: true, totalPages: 0, totalElements: 0 }],
  [
    'a refund listed as a positive amount',
    'POST',
    '/v1/bill/list',
    {
      transactions: [
        {
          transactionTime: '2026-06-01T12:00:00Z',
          merchant: 'Shop',
          amount: '30.00',
          currency: 'USD',
          status: 'REVERTED',
        },
      ],
      last: true,
      totalPages: 1,
      totalElements: 1,
    },
  ],
  [
    'a card detail with the fields a partner reads, and a field of its own beyond them',
    'POST',
    '/v1/card/detail',
    {
      cardId: '1',
      binId: 'VISA-EFI-454924',
      alias: null,
      cardStatus: 'CANCELLING',
      maskedCardNo: '************1234',
      cardBrand: 'Visa',
      currency: 'USD',
      availableBalance: 0,
      frozenAmount: 0,
      createdAt: '2026-06-01T12:00:00.000Z',
      bin,
      anything: { nested: true },
    },
  ],
];

const refused: [string, string, string, unknown][] = [
  [
    'a balance as a JSON number',
    'POST',
    '/v1/wallet/assetList',
    { assetList: [{ currency: 'USDT', availableAmount: 10, assetType: 'CRYPTO', status: 'ACTIVE' }] },
  ],
  [
    'a fee rate as a JSON number',
    'POST',
    '/v1/card/binList',
    { availableCardBinList: [{ ...bin, fee: { ...bin.fee, deposit: 0.02 } }] },
  ],
  [
    'a created card that is not ACTIVE',
    'POST',
    '/v1/card/create',
    { cardId: '1', binId: 'b', cardStatus: 'FROZEN', maskedCardNo: '1234', cardBrand: 'Visa' },
  ],
  [
    'a masked number not ending in four digits',
    'POST',
    '/v1/card/create',
    { cardId: '1', binId: 'b', cardStatus: 'ACTIVE', maskedCardNo: '1234****', cardBrand: 'Visa' },
  ],
  [
    'a card list balance as a decimal string',
    'POST',
    '/v1/card/list',
    {
      cardList: [
        {
          cardId: '1',
          binId: 'b',
          cardStatus: 'ACTIVE',
          maskedCardNo: '1234',
          availableBalance: '1',
          frozenAmount: 0,
          currency: 'USD',
        },
      ],
    },
  ],
  [
    'a listing status from the webhook vocabulary',
    'POST',
    '/v1/bill/list',
    {
      transactions: [
        { transactionTime: '2026-06-01T12:00:00Z', merchant: 'S', amount: '-1.00', currency: 'USD', status: 'CLEARED' },
      ],
      last: true,
      totalPages: 1,
      totalElements: 1,
    },
  ],
  ['a page without totalPages', 'POST', '/v1/bill/list', { transactions: [], last: true, totalElements: 0 }],
  [
    'an action answer with a non-zero code on 200',
    'POST',
    '/v1/card/freeze',
    { code: 4001, message: 'Card not found' },
  ],
  [
    'a GET of the webhook that shows the full secret',
    'GET',
    '/v1/webhook',
    {
      configured: true,
      url: 'https://x.example/h',
      enabled: true,
      deliver3dsCode: false,
      secretPrefix: 'whsec_abc',
      secret: 'whsec_abcdef',
    },
  ],
  ['an error without a message', 'POST', '/v1/card/deposit', { code: 3001 }],
  [
    'a card status outside ACTIVE, FROZEN, CANCELLING, CANCELLED',
    'POST',
    '/v1/card/list',
    {
      cardList: [
        {
          cardId: '1',
          binId: 'b',
          cardStatus: 'DELETED',
          maskedCardNo: '1234',
          availableBalance: 1,
          frozenAmount: 0,
          currency: 'USD',
        },
      ],
    },
  ],
  ['a card detail with only its id', 'POST', '/v1/card/detail', { cardId: '1' }],
  [
    'card data without the security code',
    'POST',
    '/v1/card/sensitiveInfo',
    { cardNo: '4549240372209645', expiryDate: '06/29' },
  ],
];

describe('contracts against the spec', () => {
  it.each(accepted)('accept %s', (_name, method, path, body) => {
    expect(validateResponse(method, path, 200, body)).toEqual([]);
  });

  it.each(refused)('refuse %s', (_name, method, path, body) => {
    const status = path === '/v1/card/deposit' ? 400 : 200;
    expect(validateResponse(method, path, status, body)).not.toEqual([]);
  });

  it('accept transaction events with a zone-less settledAt, and require previousStatus only on transaction.updated', () => {
    const envelope = (type: string, data: object) => ({ id: 'evt_x', type, created: 1780000000, data });
    expect(validateEvent(envelope('transaction.created', txnEvent))).toEqual([]);
    expect(
      validateEvent(envelope('transaction.updated', { ...txnEvent, status: 'CLEARED', previousStatus: 'PENDING' })),
    ).toEqual([]);
    expect(validateEvent(envelope('transaction.updated', { ...txnEvent, status: 'CLEARED' }))).not.toEqual([]);
    expect(validateEvent(envelope('transaction.created', { ...txnEvent, previousStatus: 'PENDING' }))).not.toEqual([]);
    expect(validateEvent(envelope('transaction.created', { ...txnEvent, billAmount: '12.50' }))).not.toEqual([]);
  });

  it('accept a 3DS binding challenge without amount, cardId or otp, and refuse one without last4', () => {
    const envelope = (data: object) => ({ id: 'evt_x', type: 'card.3ds.requested', created: 1780000000, data });
    expect(
      validateEvent(envelope({ type: 'binding', merchant: 'Wallet app', last4: '1234' }), { strict: true }),
    ).toEqual([]);
    expect(
      validateEvent(
        envelope({
          type: 'payment',
          merchant: 'M',
          amount: '12.5',
          currency: 'USD',
          otp: '123456',
          cardId: 'c',
          last4: '1234',
        }),
        { strict: true },
      ),
    ).toEqual([]);
    expect(validateEvent(envelope({ type: 'payment', merchant: 'M' }))).not.toEqual([]);
  });
});
