package dev.dml.ray.collective;

import io.ray.api.placementgroup.PlacementGroup;

/**
 * Where an actor of an {@link ActorGroup} starts: a bundle of a placement group, or anywhere
 * Ray likes. A replacement starts in its lost actor's slot, so a job keeps its reservation.
 * Stays in the driver.
 *
 * @param group the placement group, or null for anywhere
 * @param bundle the bundle's index in {@code group}; -1 without one
 */
public record Slot(PlacementGroup group, int bundle) {

    /** No placement group: Ray places the actor on any node with room. */
    public static final Slot ANYWHERE = new Slot(null, -1);
}
