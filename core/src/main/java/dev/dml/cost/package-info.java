/**
 * What a job costs: a dated price catalogue in SkyPilot's catalog columns ({@link
 * dev.dml.cost.PriceCatalog}, shipped as {@code prices.csv}, or the user's own {@code vms.csv}),
 * how a node is priced from its Ray labels or a price the user gives ({@link
 * dev.dml.cost.Pricing}), the running total of a job's dollars ({@link dev.dml.cost.CostMeter})
 * and the budget and deadline that stop a job ({@link dev.dml.cost.Limits}).
 */
package dev.dml.cost;
