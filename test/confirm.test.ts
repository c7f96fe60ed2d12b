import { describe, expect, it } from 'vitest';
import { canonical, createConfirmations } from '../src/confirm.js';

describe('confirmation gate', () => {
  const setup = () => {
    let now = 1_000_000;
    const gate = createConfirmations(() => now);
    return { gate, advance: (ms: number) => (now += ms) };
  };

  it('acts only on a confirm that follows a warning for the same arguments, once', () => {
    const { gate } = setup();
    expect(gate.check('t', { a: 1 }, undefined)).toMatchObject({ proceed: false, why: 'first' });
    expect(gate.check('t', { a: 1 }, true)).toEqual({ proceed: true });
    expect(gate.check('t', { a: 1 }, true)).toMatchObject({ proceed: false, why: 'no_warning' });
  });

  it('ignores key order but not values', () => {
    const { gate } = setup();
    gate.check('t', { a: 1, b: [1, 2] }, undefined);
    expect(gate.check('t', { b: [1, 2], a: 1 }, true)).toEqual({ proceed: true });
    gate.check('t', { a: 1 }, undefined);
    expect(gate.check('t', { a: 2 }, true)).toMatchObject({ proceed: false, why: 'changed' });
  });

  it('expires a warning after 10 minutes', () => {
    const { gate, advance } = setup();
    gate.check('t', { a: 1 }, undefined);
    advance(10 * 60_000 + 1);
    expect(gate.check('t', { a: 1 }, true)).toMatchObject({ proceed: false, why: 'expired' });
  });

  it('keeps tools apart', () => {
    const { gate } = setup();
    gate.check('one', { a: 1 }, undefined);
    expect(gate.check('two', { a: 1 }, true)).toMatchObject({ proceed: false });
  });

  it('names an earlier attempt with an unknown outcome until a later attempt settles', () => {
    const { gate } = setup();
    gate.recordUnknown('t', { a: 1 }, 'no answer within 30 s');
    expect(gate.check('t', { a: 1 }, undefined)).toMatchObject({ earlier: { at: 1_000_000, what: 'no answer within 30 s' } });
    gate.settle('t', { a: 1 });
    expect(gate.check('t', { a: 1 }, undefined)).not.toHaveProperty('earlier.at');
  });

  it('canonicalizes nested values and drops undefined keys', () => {
    expect(canonical({ b: { d: 1, c: [true, null] }, a: undefined })).toBe('{"b":{"c":[true,null],"d":1}}');
  });
});
