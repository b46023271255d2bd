import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// The one ajv set-up for contracts/: draft 2020-12, strict, with formats, and `multipleOf` checked on the decimal
// text of the number. ajv divides floats, so 10.07 is not a "multiple of 0.01" to it (10.07 / 0.01 is
// 1006.9999999999999); the server reads amounts as decimal text (domain/kernel/money.ts), and so must every check of them.

/** Digits after the decimal point of a number's shortest round-trip text: 10.07 -> 2, 1e-7 -> 7, 1e21 -> 0. */
function decimalPlaces(n: number): number {
  const [mantissa = '', exponent = '0'] = String(Math.abs(n)).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}

/** Whether `value` is an exact multiple of `step`, decimally when the step is a power of ten (0.01, 1e-6, 1). */
function isMultipleOf(value: number, step: number): boolean {
  if (!Number.isFinite(value)) return false;
  const places = decimalPlaces(step);
  if (Number(`1e-${places}`) === step) return decimalPlaces(value) <= places;
  const q = value / step;
  return Number.isInteger(q);
}

export function newAjv(options: { allErrors?: boolean; validateFormats?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: options.allErrors ?? true,
    validateFormats: options.validateFormats ?? true,
  });
  addFormats.default(ajv);
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: false,
    validate: (step: number, value: number) => isMultipleOf(value, step),
  });
  return ajv;
}
