import type { Config } from '../config.js';
import { ApiError, ConfigError } from '../errors.js';
import type { Log } from '../log.js';
import { redactor } from '../text.js';
import type { CheckResult } from './context.js';
import type { SealedCredentials } from './grant.js';

/**
 * Checks the credentials a person gives at consent with the service, before any code is issued.
 * The service has no call that says whose a token is, and every call names an app: the token reads
 * that app's campaign list (the lightest read every token kind may make), and an API key, when given,
 * its social calendar (the API key's own operation). Nothing is stored whatever the answer.
 */
export function serviceCheck(config: Config, log: Log): (credentials: SealedCredentials, appId: string) => Promise<CheckResult> {
  return async (credentials, appId) => {
    const { createApiClient } = await import('../api/client.js');
    const redact = redactor([credentials.accessToken, credentials.apiKey].filter((secret): secret is string => Boolean(secret && secret.length >= 4)));
    const callerConfig: Config = { ...config, accessToken: credentials.accessToken, apiKey: credentials.apiKey, monitoringApiKey: credentials.apiKey };
    const api = createApiClient({ config: callerConfig, log, redact });
    const app = JSON.stringify(appId.slice(0, 200));
    let step: 'token' | 'key' = 'token';
    try {
      await api.listAdCampaigns(appId, false);
      if (credentials.apiKey) {
        step = 'key';
        await api.listSocialPosts(appId);
      }
      return { ok: true };
    } catch (error) {
      const what = step === 'token' ? 'access token' : 'API key';
      if (error instanceof ApiError && error.status === 401) return { ok: false, status: 400, message: `The service did not accept this ${what}.` };
      if (error instanceof ApiError && error.status === 403) return { ok: false, status: 400, message: `The service refused this ${what} for app ${app} (403: no access to it, or a kind of key it does not take).` };
      if (error instanceof ApiError && error.status === 404) return { ok: false, status: 400, message: `The service found no app ${app} for this ${what}.` };
      if (error instanceof ConfigError) return { ok: false, status: 500, message: 'This server has no service URL set (APPMGMT_BASE_URL), so it cannot check credentials.' };
      log.warn(`sign-in: checking credentials with the service failed: ${redact(error instanceof Error ? error.message : String(error))}`);
      return { ok: false, status: 502, message: `The service could not be asked (${error instanceof ApiError ? `it answered ${error.status}` : 'no answer'}); try again in a moment.` };
    }
  };
}
