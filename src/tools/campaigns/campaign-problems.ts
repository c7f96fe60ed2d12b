import { InputError, RefusedError } from '../../errors.js';

/**
 * create_ad_campaign's local checks report every problem at once (issue 17: missing requirements
 * came back one per call, the logo and then the images), so a model fixes them all in one call.
 */

/** Problems listed in one answer; past this many the call is far from right, and the rest are counted. */
const MAX_PROBLEMS = 12;

/** Every local rule the arguments break, in one answer; one problem reads exactly as a plain InputError. */
export class CampaignProblemsError extends InputError {
  constructor(
    readonly problems: InputError[],
    readonly refusal?: RefusedError,
  ) {
    super(problems.map((problem) => problem.field).join(', '), problems.map((problem) => problem.rule).join('; '));
    if (problems.length === 1 && !refusal) return;
    const shown = problems.slice(0, MAX_PROBLEMS);
    const more = problems.length - shown.length;
    this.message = [
      `Invalid input, ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}. Nothing was sent. Fix all of them, then call again:`,
      ...shown.map((problem) => `- ${problem.field}: ${problem.rule}.`),
      ...(more > 0 ? [`- and ${more} more`] : []),
      ...(refusal ? [`- also ${refusal.message}`] : []),
    ].join('\n');
  }
}

/** Collects what each check throws, so the next check still runs. */
export class Problems {
  private readonly inputs: InputError[] = [];
  private refusal: RefusedError | undefined;

  add(...problems: InputError[]): void {
    this.inputs.push(...problems);
  }

  /** Runs one check; an InputError or RefusedError it throws is noted, anything else propagates. */
  run<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (error instanceof InputError) this.inputs.push(error);
      else if (error instanceof RefusedError) this.refusal ??= error;
      else throw error;
      return undefined;
    }
  }

  /** @throws CampaignProblemsError when any input is wrong; else the refusal, if any. */
  throwIfAny(): void {
    if (this.inputs.length > 0) throw new CampaignProblemsError(this.inputs, this.refusal);
    if (this.refusal) throw this.refusal;
  }
}
