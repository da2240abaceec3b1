"""Hardware drivers: PN532 readers (I2C behind TCA9548A muxes, SPI, UART) and NDEF."""
