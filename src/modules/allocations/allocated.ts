/**
 * To the public, a unit of a realtor's allocation that is free reads `unavailable` (§18); any other availability
 * reads as it is. The bundle and the live feed show an allocated unit by this one rule.
 */
export function allocatedAvailability(availability: unknown): unknown {
  return availability === 'available' ? 'unavailable' : availability;
}
