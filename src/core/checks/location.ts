import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { StandaloneCheck } from './pipeline.js';
import type { CheckContext, CheckOutcome } from './types.js';

const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

/** The location body's fields; `locationInput` adds the rules between them. */
export const locationFields = z.object({
  latitude: latitude.nullable().optional(),
  longitude: longitude.nullable().optional(),
  accuracy: z.number().min(0).max(1e7).nullable().optional(),
  expected_latitude: latitude.optional(),
  expected_longitude: longitude.optional(),
  radius_m: z.number().positive().max(2e7).optional(),
  /** Where the fix came from, e.g. `gps`; `permission_denied` when the user blocked it. */
  source: z.string().trim().min(1).max(40).optional(),
  captured_at: z.iso.datetime({ offset: true }).optional(),
  error: z.string().max(200).optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});

export const locationInput = locationFields.superRefine((input, ctx) => {
  if ((input.expected_latitude === undefined) !== (input.expected_longitude === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['expected_longitude'],
      message: 'expected_latitude and expected_longitude go together',
    });
  }
  if (input.radius_m !== undefined && input.expected_latitude === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['radius_m'],
      message: 'radius_m needs expected_latitude and expected_longitude',
    });
  }
});
export type LocationInput = z.infer<typeof locationInput>;

const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres (haversine, mean Earth radius). */
export function haversineMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const metres = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)} km` : `${Math.round(value)} m`);

type PreparedLocation = LocationInput;

/** The spec's location table: geofence verdict, distance report, capture-only, and no fix = failed. */
export const locationCheck: StandaloneCheck<LocationInput, PreparedLocation> = {
  type: 'location',
  input: locationInput,
  async prepare(input: LocationInput): Promise<PreparedLocation> {
    const hasFix = input.latitude != null && input.longitude != null;
    if (hasFix && input.accuracy == null) {
      throw new DomainError('validation_error', 'accuracy (metres) is required with a GPS fix', {
        data: { errors: { accuracy: 'required with latitude and longitude' } },
      });
    }
    if ((input.latitude == null) !== (input.longitude == null)) {
      throw new DomainError('validation_error', 'latitude and longitude go together', {
        data: { errors: { longitude: 'latitude and longitude go together' } },
      });
    }
    return input;
  },
  async execute(input: PreparedLocation, context: CheckContext): Promise<CheckOutcome> {
    const expected = input.expected_latitude !== undefined && input.expected_longitude !== undefined;
    const base = {
      source: input.source ?? 'gps',
      captured_at: input.captured_at ?? context.today.toISOString(),
      ...(expected
        ? {
            expected_latitude: input.expected_latitude,
            expected_longitude: input.expected_longitude,
            radius_m: input.radius_m ?? null,
          }
        : {}),
    };
    if (input.latitude == null || input.longitude == null || input.source === 'permission_denied') {
      // No real fix (blocked permission or missing coordinates) is a hard fail, never a pass or review.
      return {
        check: {
          type: 'location',
          status: 'failed',
          data: {
            latitude: null,
            longitude: null,
            accuracy: null,
            ...base,
            source: 'permission_denied',
            ...(expected ? { distance_m: null, match: false } : {}),
          },
          error: 'permission_denied: no GPS fix was provided (location permission blocked or coordinates missing)',
        },
        reason: 'permission_denied',
      };
    }
    const fix = { latitude: input.latitude, longitude: input.longitude, accuracy: input.accuracy! };
    if (!expected) {
      return { check: { type: 'location', status: 'passed', data: { ...fix, ...base }, error: null } };
    }
    const distance = round1(
      haversineMetres(input.latitude, input.longitude, input.expected_latitude!, input.expected_longitude!),
    );
    if (input.radius_m === undefined) {
      return {
        check: {
          type: 'location',
          status: 'passed',
          score: distance,
          data: { ...fix, ...base, distance_m: distance, match: null },
          error: null,
        },
      };
    }
    const inside = distance <= input.radius_m;
    return {
      check: {
        type: 'location',
        status: inside ? 'passed' : 'failed',
        score: distance,
        data: { ...fix, ...base, distance_m: distance, match: inside },
        error: inside
          ? null
          : `outside the geofence: ${metres(distance)} from the expected point, radius ${metres(input.radius_m)}`,
      },
      reason: 'outside_geofence',
    };
  },
};
