"""SQLAlchemy models. Later issues add their tables here; migrations must follow."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Deterministic constraint names, so migrations are the same on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Counter(Base):
    """A named, monotonically increasing number: e.g. the node generation the matcher watches."""

    __tablename__ = "counters"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)


class Node(Base):
    """A bare-metal node, with the fields of Ironic's node that scheduling needs."""

    __tablename__ = "nodes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True)
    name: Mapped[str | None] = mapped_column(String(255), unique=True)
    driver: Mapped[str] = mapped_column(String(255), nullable=False)
    resource_class: Mapped[str | None] = mapped_column(String(80), index=True)
    provision_state: Mapped[str] = mapped_column(String(15), nullable=False, index=True)
    target_provision_state: Mapped[str | None] = mapped_column(String(15))
    power_state: Mapped[str | None] = mapped_column(String(15))
    target_power_state: Mapped[str | None] = mapped_column(String(15))
    maintenance: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, index=True)
    maintenance_reason: Mapped[str | None] = mapped_column(Text)
    instance_uuid: Mapped[str | None] = mapped_column(String(36))
    description: Mapped[str | None] = mapped_column(Text)
    last_error: Mapped[str | None] = mapped_column(Text)
    properties: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    instance_info: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    driver_info: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    provision_updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Ironic's data fields (migration 0007); lengths as Ironic's own tables.
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    lessee: Mapped[str | None] = mapped_column(String(255), index=True)
    conductor_group: Mapped[str] = mapped_column(
        String(255), nullable=False, default="", server_default="", index=True
    )
    chassis_uuid: Mapped[str | None] = mapped_column(String(36))
    instance_name: Mapped[str | None] = mapped_column(String(255))
    automated_clean: Mapped[bool | None] = mapped_column(Boolean)
    protected: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )
    protected_reason: Mapped[str | None] = mapped_column(Text)
    retired: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )
    retired_reason: Mapped[str | None] = mapped_column(Text)
    disable_power_off: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )
    network_data: Mapped[dict[str, Any]] = mapped_column(
        JSON, nullable=False, default=dict, server_default="{}"
    )
    # Set by Ironic's conductor from the hardware; kept so a copy of a real node keeps them.
    boot_mode: Mapped[str | None] = mapped_column(String(16))
    secure_boot: Mapped[bool | None] = mapped_column(Boolean)
    shard: Mapped[str | None] = mapped_column(String(255), index=True)
    parent_node: Mapped[str | None] = mapped_column(String(36), index=True)
    bios_interface: Mapped[str | None] = mapped_column(String(255))
    boot_interface: Mapped[str | None] = mapped_column(String(255))
    console_interface: Mapped[str | None] = mapped_column(String(255))
    deploy_interface: Mapped[str | None] = mapped_column(String(255))
    firmware_interface: Mapped[str | None] = mapped_column(String(255))
    inspect_interface: Mapped[str | None] = mapped_column(String(255))
    management_interface: Mapped[str | None] = mapped_column(String(255))
    network_interface: Mapped[str | None] = mapped_column(String(255))
    power_interface: Mapped[str | None] = mapped_column(String(255))
    raid_interface: Mapped[str | None] = mapped_column(String(255))
    rescue_interface: Mapped[str | None] = mapped_column(String(255))
    storage_interface: Mapped[str | None] = mapped_column(String(255))
    vendor_interface: Mapped[str | None] = mapped_column(String(255))


class NodeTrait(Base):
    """One trait of one node (Ironic's node_traits table)."""

    __tablename__ = "node_traits"
    __table_args__ = (Index("ix_node_traits_trait_node_id", "trait", "node_id"),)

    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE"), primary_key=True
    )
    trait: Mapped[str] = mapped_column(String(255), primary_key=True)


class NodeChange(Base):
    """One node a node generation changed (created, updated or deleted): the log a cache reads
    to follow changes without reading every node. ``uuid`` "*" means more nodes than the log
    lists changed at that generation (a reader rebuilds). Old generations are pruned."""

    __tablename__ = "node_changes"

    generation: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), primary_key=True)
    created: Mapped[bool] = mapped_column(Boolean, nullable=False)


class NodeInspection(Base):
    """The last inspection data stored for a node, and what classifying it decided."""

    __tablename__ = "node_inspections"

    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE"), primary_key=True
    )
    data: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    result: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class NovaFlavor(Base):
    """A flavor of the Nova-compatible compute API (Nova's flavors table, minus the unused)."""

    __tablename__ = "flavors"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    flavorid: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    memory_mb: Mapped[int] = mapped_column(Integer, nullable=False)
    vcpus: Mapped[int] = mapped_column(Integer, nullable=False)
    root_gb: Mapped[int] = mapped_column(Integer, nullable=False)
    ephemeral_gb: Mapped[int] = mapped_column(Integer, nullable=False)
    swap: Mapped[int] = mapped_column(Integer, nullable=False)
    rxtx_factor: Mapped[float] = mapped_column(Float, nullable=False)
    vcpu_weight: Mapped[int | None] = mapped_column(Integer)
    disabled: Mapped[bool] = mapped_column(Boolean, nullable=False)
    is_public: Mapped[bool] = mapped_column(Boolean, nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class NovaFlavorExtraSpec(Base):
    __tablename__ = "flavor_extra_specs"

    flavor_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("flavors.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(String(255), nullable=False)


class NovaFlavorProject(Base):
    __tablename__ = "flavor_projects"

    flavor_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("flavors.id", ondelete="CASCADE"), primary_key=True
    )
    project_id: Mapped[str] = mapped_column(String(255), primary_key=True)


class DeployTemplate(Base):
    """An Ironic deploy template; steps are kept as a JSON list so their order survives."""

    __tablename__ = "deploy_templates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Runbook(Base):
    """An Ironic runbook (API 1.92): steps kept as a JSON list in their order, each with its
    own ``order``; traits (API 1.112) as a JSON list of distinct names."""

    __tablename__ = "runbooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False, unique=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    public: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    owner: Mapped[str | None] = mapped_column(String(255), index=True)
    disable_ramdisk: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    traits: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class FlavorProfile(Base):
    """An Octavia-style flavor profile: a provider and the flavor data it validated. The
    nil UUID is Octavia's placeholder (migration 0010), which the API hides."""

    __tablename__ = "flavor_profiles"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    provider_name: Mapped[str] = mapped_column(String(255), nullable=False)
    flavor_data: Mapped[str] = mapped_column(String(4096), nullable=False)


class ServiceFlavor(Base):
    """An Octavia-style flavor: a unique name over a flavor profile (which it pins)."""

    __tablename__ = "service_flavors"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # Null as in Octavia (shown ""); NULLs never clash on the unique name.
    name: Mapped[str | None] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    flavor_profile_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("flavor_profiles.id", ondelete="RESTRICT"), nullable=False
    )


class BackgroundState(Base):
    """What a background loop's current holder shares with every process on the database: the
    leader of the loops (name ``leader``) and the Ironic mirror's state (name ``mirror``)."""

    __tablename__ = "background_state"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(255), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    state: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)


class CapacitySample(Base):
    """One sample of capacity: at ``taken_at``, the nodes a flavor (``scope`` "flavor") or a
    resource class (``scope`` "resource_class", ``name`` the class) counts in all, sellable
    (available as Placement would offer them) and used (holding an instance). The leader takes
    one per flavor and per resource class every few minutes; samples past the retention are
    pruned."""

    __tablename__ = "capacity_samples"

    scope: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    taken_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), primary_key=True, index=True
    )
    resource_class: Mapped[str] = mapped_column(String(255), nullable=False)
    total: Mapped[int] = mapped_column(Integer, nullable=False)
    sellable: Mapped[int] = mapped_column(Integer, nullable=False)
    used: Mapped[int] = mapped_column(Integer, nullable=False)
