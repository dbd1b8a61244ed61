-- Amdahl's law at 5% and 1% serial work.
sweep "amdahl" {
  serial_fraction = {0.05, 0.01},
  workers = powers_of_two(1, 1024),
}
