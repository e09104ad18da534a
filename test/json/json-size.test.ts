// The scans that measure a JSON text before it is parsed (src/json/json-size.ts): its values, and its text outside
// inline media.
import { describe, expect, it } from 'vitest';
import { hasMoreValuesThan, textOutsideMedia } from '../../src/json/json-size.ts';

describe('hasMoreValuesThan', () => {
  it('counts the openers and commas outside strings, escaped quotes included', () => {
    expect(hasMoreValuesThan('[0,0,0]', 3)).toBe(false);
    expect(hasMoreValuesThan('[0,0,0,0]', 3)).toBe(true);
    expect(hasMoreValuesThan('[{},[]]', 3)).toBe(true);
    // Commas and brackets inside strings (one after an escaped quote) are not values.
    expect(hasMoreValuesThan(`["${',[{'.repeat(20)}","\\"${',,,'.repeat(10)}"]`, 3)).toBe(false);
  });

  it('the shortest text over the bound is still scanned: only a text too short to hold more is settled by its length', () => {
    for (let max = 1; max <= 6; max++) {
      expect(hasMoreValuesThan(`[${'0,'.repeat(max)}0]`, max)).toBe(true);
      expect(hasMoreValuesThan('['.repeat(max + 1) + ']'.repeat(max + 1), max)).toBe(true);
      expect(hasMoreValuesThan(`[${'0,'.repeat(max - 1)}0]`, max)).toBe(false);
    }
  });
});

describe('textOutsideMedia', () => {
  const url = `data:image/png;base64,${'A'.repeat(100)}`;
  it('subtracts data URL strings and the string values of data members', () => {
    const chat = JSON.stringify({
      messages: [
        {
          content: [
            { type: 'image_url', image_url: { url } },
            { type: 'image_url', image_url: url },
          ],
        },
      ],
    });
    expect(textOutsideMedia(chat)).toBe(chat.length - 2 * (url.length + 2));
    const anthropic = `{"source": {"type":"base64", "data" : "${'B'.repeat(100)}"}}`;
    expect(textOutsideMedia(anthropic)).toBe(anthropic.length - 102);
    const list = `["${url}",  "${url}"]`;
    expect(textOutsideMedia(list)).toBe(list.length - 2 * (url.length + 2));
  });

  it('text that only mentions a data URL, a data URL spelt as a key and a data member that is not a string are text', () => {
    const mention = JSON.stringify({ content: `see "${url}" and "data": "${'C'.repeat(50)}"` });
    expect(textOutsideMedia(mention)).toBe(mention.length);
    const key = `{"${url}":1}`;
    expect(textOutsideMedia(key)).toBe(key.length);
    const notString = `{"a":1,"data":[1,2,3],"data":{"x":"${'D'.repeat(20)}"}}`;
    expect(textOutsideMedia(notString)).toBe(notString.length);
  });
});
