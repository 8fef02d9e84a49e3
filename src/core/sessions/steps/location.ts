import { type HostedStep, runCheck } from './step.js';

// The location step: the browser's position, against the geofence the session was created with.

export const locationStep: HostedStep = async (session, input, _work, ports) => {
  const metadata = session.metadata ?? {};
  const geofence = {
    ...(typeof metadata.expected_lat === 'number'
      ? { expected_latitude: metadata.expected_lat, expected_longitude: metadata.expected_lng }
      : {}),
    ...(typeof metadata.radius_m === 'number' ? { radius_m: metadata.radius_m } : {}),
  };
  return {
    outcomes: [await runCheck(ports.checks.location, { ...input, ...geofence }, ports.contextOf(session))],
    work: {},
  };
};
