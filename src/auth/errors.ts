/** The sign-in store did not answer: nothing is issued and no token is accepted until it does. */
export class AuthStoreUnavailableError extends Error {
  override name = 'AuthStoreUnavailableError';
  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(`The sign-in store is unavailable (${reason}); nothing is issued or accepted until it answers again. A retry in a moment may help.`, options);
  }
}

/** An OAuth error answer (RFC 6749 section 5.2, RFC 6750 section 3.1, RFC 7591 section 3.2.2). */
export class OAuthFailure extends Error {
  override name = 'OAuthFailure';
  constructor(
    readonly code: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
