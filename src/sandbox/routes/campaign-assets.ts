import type { ValidationItem } from '../respond.js';
import type { State } from '../state.js';
import type { CampaignBody } from './campaign-body.js';

/** Section 8: image files over 5 MB are left out (read as MiB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MIN_LOGO_PIXELS = 128;

type Unfetchable = 'another_host' | 'too_large' | 'no_response';
type Fetched =
  | { kind: 'image'; width: number; height: number; bytes: number }
  | { kind: 'unfetchable'; why: Unfetchable }
  | { kind: 'not_image'; contentType: string };

/**
 * Why an address could not be used, naming what is accepted (issue 17: "it is on another host" alone
 * leaves the caller guessing which host): the hosts the service fetches from, the size limit.
 */
function why(state: State, reason: Unfetchable): string {
  if (reason === 'another_host') return `it is on another host; the service fetches images only from ${state.web.asset_hosts.join(', ')}`;
  if (reason === 'too_large') return 'the file is over 5 MB, the largest the service fetches';
  return 'it did not answer';
}

/** What the service finds at an image address, per the world's `web` section. */
export function fetchAsset(state: State, address: string): Fetched {
  let host: string;
  try {
    host = new URL(address).hostname;
  } catch {
    return { kind: 'unfetchable', why: 'no_response' };
  }
  if (!state.web.asset_hosts.includes(host)) return { kind: 'unfetchable', why: 'another_host' };
  if (state.web.unreachable_hosts.includes(host)) return { kind: 'unfetchable', why: 'no_response' };
  const resource = state.web.resources.find((candidate) => candidate.url === address);
  if (!resource) return { kind: 'image', width: 1200, height: 1200, bytes: 250_000 };
  if (resource.kind === 'no_response') return { kind: 'unfetchable', why: 'no_response' };
  if (resource.kind === 'not_image') return { kind: 'not_image', contentType: resource.content_type };
  if (resource.bytes > MAX_IMAGE_BYTES) return { kind: 'unfetchable', why: 'too_large' };
  return { kind: 'image', width: resource.width, height: resource.height, bytes: resource.bytes };
}

export interface ScreenedImages {
  kept: CampaignBody['images'];
  leftOut: { url: string; kind: string; reason: string }[];
  /** Addresses that are not images: each rejects the request (4.2 rule 4). */
  problems: ValidationItem[];
}

/** 4.2 rule 4: unfetchable images are left out; an address that is not an image rejects the request (every one is named). */
export function screenImages(state: State, images: CampaignBody['images']): ScreenedImages {
  const result: ScreenedImages = { kept: [], leftOut: [], problems: [] };
  for (const [index, image] of images.entries()) {
    const fetched = fetchAsset(state, image.url);
    if (fetched.kind === 'not_image') {
      const msg = `${image.url} is not an image (${fetched.contentType}); give the address of the image file itself`;
      result.problems.push({ loc: ['body', 'images', String(index), 'url'], msg, type: 'value_error' });
    } else if (fetched.kind === 'unfetchable') result.leftOut.push({ url: image.url, kind: image.kind, reason: why(state, fetched.why) });
    else result.kept.push(image);
  }
  return result;
}

/** What the ad platform's missing-slot reason leaves unsaid: which images the service left out, and why. */
export function leftOutText(images: ScreenedImages): string {
  return images.leftOut.map((image) => `${image.kind} ${image.url} was left out: ${image.reason}`).join('; ');
}

export interface CheckedLogo {
  url: string;
  /** 2.2: a non-square logo is padded to square. */
  padded: boolean;
}

/**
 * 2.2 logo: required for PERFORMANCE_MAX, at least 128x128; one the service cannot fetch fails the
 * request. The problem names what is accepted: the hosts, the size, an image file.
 */
export function checkLogo(state: State, logoUrl: string | null | undefined): CheckedLogo | ValidationItem {
  const loc = ['body', 'logo_url'];
  const accepted = `an image file of at least ${MIN_LOGO_PIXELS}x${MIN_LOGO_PIXELS} on ${state.web.asset_hosts.join(', ')}`;
  if (!logoUrl) return { loc, msg: `A logo is required for PERFORMANCE_MAX campaigns: ${accepted}`, type: 'missing' };
  const fetched = fetchAsset(state, logoUrl);
  if (fetched.kind === 'unfetchable') return { loc, msg: `The logo could not be fetched: ${why(state, fetched.why)}`, type: 'value_error' };
  if (fetched.kind === 'not_image') return { loc, msg: `The logo is not an image (${fetched.contentType}); give ${accepted}`, type: 'value_error' };
  if (fetched.width < MIN_LOGO_PIXELS || fetched.height < MIN_LOGO_PIXELS) {
    return { loc, msg: `The logo is ${fetched.width}x${fetched.height}; it must be at least ${MIN_LOGO_PIXELS}x${MIN_LOGO_PIXELS}`, type: 'value_error' };
  }
  return { url: logoUrl, padded: fetched.width !== fetched.height };
}

export const isProblem = (value: CheckedLogo | ValidationItem): value is ValidationItem => 'msg' in value;
