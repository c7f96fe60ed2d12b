import { InputError } from '../../errors.js';
import { quote } from '../../text.js';

/**
 * Geo targets of create_ad_campaign (issue 17). The spec (2.2) says they are the ad platform's geo
 * target constant ids: numbers, sent as strings. A country code or a place name is not one, so it is
 * refused before the warning; the warning names the places of the ids this table knows.
 *
 * The table: countries only, whose constant is 2000 + the ISO 3166-1 numeric code (the ad platform's
 * public geo target constants), each with the alpha-2 codes a caller may type instead. Regions and
 * cities have ids of their own that are not derived from any code, so they are not guessed here.
 */
const COUNTRIES: ReadonlyArray<readonly [id: string, name: string, codes: readonly string[]]> = [
  ['2840', 'United States', ['US', 'USA']],
  ['2826', 'United Kingdom', ['GB', 'UK']],
  ['2124', 'Canada', ['CA']],
  ['2036', 'Australia', ['AU']],
  ['2276', 'Germany', ['DE']],
  ['2250', 'France', ['FR']],
  ['2724', 'Spain', ['ES']],
  ['2380', 'Italy', ['IT']],
  ['2528', 'Netherlands', ['NL']],
  ['2392', 'Japan', ['JP']],
  ['2356', 'India', ['IN']],
  ['2076', 'Brazil', ['BR']],
  ['2484', 'Mexico', ['MX']],
  ['2752', 'Sweden', ['SE']],
  ['2756', 'Switzerland', ['CH']],
  ['2040', 'Austria', ['AT']],
  ['2056', 'Belgium', ['BE']],
  ['2208', 'Denmark', ['DK']],
  ['2578', 'Norway', ['NO']],
  ['2246', 'Finland', ['FI']],
  ['2372', 'Ireland', ['IE']],
  ['2554', 'New Zealand', ['NZ']],
  ['2702', 'Singapore', ['SG']],
  ['2616', 'Poland', ['PL']],
  ['2620', 'Portugal', ['PT']],
];

const NAMES = new Map(COUNTRIES.map(([id, name]) => [id, name]));
const BY_TYPED = new Map(COUNTRIES.flatMap(([id, name, codes]) => [...codes, name].map((typed) => [typed.toLowerCase(), id] as const)));

/** A geo target constant id: digits only; 10 bounds the length (the longest ids are 7 or 8 digits). */
const GEO_ID = /^[1-9]\d{0,9}$/;
const EXAMPLE = '2840';

/** "2840 (United States)", or the bare id when the table does not know it. */
export const geoExample = (id: string) => (NAMES.has(id) ? `${id} (${NAMES.get(id)})` : id);

/** The place of a well-known id, or undefined: the warning shows "2840 = United States". */
export const placeOf = (id: string): string | undefined => NAMES.get(id);

/**
 * Every entry that is not a numeric id, as InputErrors (one per entry, so all are named at once).
 * A country code or name the table knows gets its id as the example ('US' -> 2840 (United States)).
 */
export function geoTargetProblems(targets: readonly string[]): InputError[] {
  return targets.flatMap((target, i) => {
    if (GEO_ID.test(target)) return [];
    const meant = BY_TYPED.get(target.trim().toLowerCase());
    const example = meant ? geoExample(meant) : `${geoExample(EXAMPLE)}; other places' ids are in the ad platform's geo target list`;
    return [new InputError(`geo_targets[${i}] ${quote(target, 40)}`, `geo_targets are numeric geo target constant ids, e.g. ${example}`)];
  });
}
