"""The noise sources field-effect transistors share (the JFET, the MOSFET): the thermal noise of
their drain and source resistances and the channel's thermal and flicker noise, as ngspice-39
names them (``rd``, ``rs``, ``id``, ``1overf``)."""

__all__ = ["FETNoiseParts"]


class FETNoiseParts:
    """``noise_parts`` and the names of the noise currents a FET's equations write as
    ``self._noise(part)`` (0 here; parameters in the class ``noise_variant`` makes). The
    device gives ``internal_noise``, each PSD by its own model."""

    NOISE_PARTS = {"rd": "thermal", "rs": "thermal", "id": "thermal", "1overf": "flicker"}

    def _noise(self, part):
        """The zero-valued noise current of ``part`` (only in :meth:`noise_variant`'s class)."""
        return 0

    def noise_parts(self, params):
        """The noise sources inside the device, ``{part: kind}``, with its parameter values
        ``params`` (by name): the thermal noise of RD and RS where they are > 0, the channel's
        thermal and flicker noise."""
        return {part: kind for part, kind in self.NOISE_PARTS.items()
                if part not in ("rd", "rs") or params[part.upper()] > 0}
