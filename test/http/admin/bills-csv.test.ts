// CSV cells of the bill export: RFC 4180 quoting, and operator-entered text (token names) that a spreadsheet
// would execute as a formula is neutralised.
import { describe, expect, it } from 'vitest';
import { billCsv, BILL_CSV_HEADER, csvField } from '../../../src/core/admin/bills.ts';

describe('bill CSV cells', () => {
  it('quotes commas, quotes and line breaks', () => {
    expect(csvField('Acme, "R&D"')).toBe('"Acme, ""R&D"""');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField(null)).toBe('');
  });

  it.each(['=1+1', '+SUM(A1:A9)', '-2+3', '@cmd', '\tx', '=HYPERLINK("http://evil.example","click")'])(
    'text %j starting like a formula opens as text',
    (name) => {
      const cell = csvField(name);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted).toBe(`'${name}`);
    },
  );

  it('numbers and numeric strings (amounts) are left as they are', () => {
    expect(csvField(-1500)).toBe('-1500');
    expect(csvField('-0.001500')).toBe('-0.001500');
    expect(csvField('12.000000')).toBe('12.000000');
    expect(csvField('plain name')).toBe('plain name');
  });

  it('a token named like a formula cannot inject one through the export', () => {
    const csv = billCsv([
      {
        token_id: 'tok_1',
        token_name: '=cmd|" /C calc"!A0',
        period: 'day',
        period_start: '2026-01-01',
        first_day: '2026-01-01',
        last_day: '2026-01-01',
        entries: 1,
        amount: 5,
        amount_units: '0.000005',
        list_amount: 5,
        models: {},
        credits: { entries: 0, amount: 0 },
      },
    ]);
    const [header, row] = csv.split('\r\n');
    expect(header).toBe(BILL_CSV_HEADER.join(','));
    expect(row).toBe(`tok_1,"'=cmd|"" /C calc""!A0",day,2026-01-01,1,5,0.000005,0`);
  });
});
