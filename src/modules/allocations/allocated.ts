/**
 * To the public, a unit of a realtor's allocation that is free reads `unavailable`; any other availability
 * reads as it is. The bundle and the live feed show an allocated unit by this one rule.
 */
export function allocatedAvailability(availability: unknown): unknown {
  return availability === 'available' ? 'unavailable' : availability;
}

/** Whether a project has any allocations, so the bundle and the live feed need to look up whose units are whose. */
export const hasAllocations = (settings: Record<string, unknown>) => Array.isArray(settings.allocations) && settings.allocations.length > 0;
