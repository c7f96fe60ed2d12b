import { describe, expect, it } from 'vitest';
import { APPROVAL_FORM, formAnswerValidator } from '../../src/gate/approval.js';

describe('the approval form check', () => {
  const check = formAnswerValidator.getValidator(APPROVAL_FORM);

  it('passes an answer of the form shape through unchanged', () => {
    const answer = { approve: true };
    expect(check(answer)).toEqual({ valid: true, data: answer, errorMessage: undefined });
    expect(check({ approve: false }).valid).toBe(true);
  });

  it.each([
    [null, 'the answer is not an object'],
    [[true], 'the answer is not an object'],
    ['approve', 'the answer is not an object'],
    [{}, 'approve is missing'],
    [{ approve: 'true' }, 'approve must be a boolean'],
    [{ approve: 1 }, 'approve must be a boolean'],
  ])('refuses %j: %s', (answer, message) => {
    expect(check(answer)).toEqual({ valid: false, data: undefined, errorMessage: message });
  });

  it('checks integers as integers, for any flat form', () => {
    const count = formAnswerValidator.getValidator({ properties: { n: { type: 'integer' } }, required: ['n'] });
    expect(count({ n: 3 }).valid).toBe(true);
    expect(count({ n: 3.5 })).toMatchObject({ valid: false, errorMessage: 'n must be an integer' });
  });
});
