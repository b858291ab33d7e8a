"""ImageNet-1k class names and the everyday words people ask with.

ImageNet's classes are WordNet leaves ("tabby", "espresso", "moped"); a person
asks for "a cat", "coffee" or "a motorbike".  WordNet itself is not shipped
here, so a small hand-made table maps ranges of class indices (the ImageNet
order groups kinds together: dogs are 151-268) and single classes to broader
words.  Indices refer to the standard 1000-class order.
"""

from __future__ import annotations

from pathlib import Path

NUM_CLASSES = 1000

# Names used instead of the first synonym where two classes share it.
_RENAMED = {134: "crane bird", 639: "tank suit"}

_R = range


def _ids(*parts: int | range) -> tuple[int, ...]:
    return tuple(i for part in parts for i in (part if isinstance(part, range) else (part,)))


# (class indices, everyday words); a class collects the words of every entry naming it.
_EVERYDAY: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...] = (
    # animals
    (_ids(_R(0, 7), _R(389, 398)), ("fish", "animal")),
    (_ids(_R(2, 5)), ("shark",)),
    (_ids(_R(7, 25), _R(80, 101), _R(127, 147)), ("bird", "animal")),
    (_ids(7, 8), ("chicken",)),
    (_ids(_R(87, 91)), ("parrot",)),
    (_ids(97, 98, 99), ("duck",)),
    (_ids(_R(25, 33)), ("amphibian", "animal")),
    (_ids(30, 31, 32), ("frog",)),
    (_ids(_R(33, 69)), ("reptile", "animal")),
    (_ids(_R(33, 38)), ("turtle",)),
    (_ids(_R(38, 49)), ("lizard",)),
    (_ids(49, 50), ("crocodile",)),
    (_ids(_R(52, 69)), ("snake",)),
    (_ids(_R(70, 80), _R(300, 327)), ("bug", "animal")),
    (_ids(70, _R(72, 78)), ("spider",)),
    (_ids(_R(300, 327)), ("insect",)),
    (_ids(_R(300, 308)), ("beetle",)),
    (_ids(_R(321, 327)), ("butterfly",)),
    (_ids(_R(107, 118), _R(118, 127), _R(327, 330)), ("sea creature", "animal")),
    (_ids(_R(118, 122), 125), ("crab",)),
    (_ids(122, 123, 124), ("lobster",)),
    (_ids(101, _R(102, 107), _R(147, 151), _R(269, 300), _R(330, 389)), ("animal",)),
    (_ids(_R(151, 269)), ("dog", "pet", "animal")),
    (_ids(_R(269, 276)), ("wolf", "wild dog")),
    (_ids(_R(277, 281)), ("fox",)),
    (_ids(_R(281, 286)), ("cat", "pet")),
    (_ids(_R(286, 294)), ("big cat", "wild cat")),
    (_ids(_R(294, 298), 388), ("bear",)),
    (_ids(147, 148), ("whale",)),
    (_ids(_R(330, 333)), ("rabbit", "pet")),
    (_ids(333, 335, 336, 337, 338), ("rodent",)),
    (_ids(333, 338), ("pet",)),
    (_ids(335), ("squirrel",)),
    (_ids(339), ("horse",)),
    (_ids(_R(341, 344)), ("pig",)),
    (_ids(345, 346, 347), ("cow", "cattle")),
    (_ids(348, 349), ("sheep",)),
    (_ids(_R(350, 354)), ("antelope",)),
    (_ids(354), ("camel",)),
    (_ids(_R(365, 385)), ("monkey", "primate")),
    (_ids(_R(365, 370)), ("ape",)),
    (_ids(101, 385, 386), ("elephant",)),
    (_ids(387, 388), ("panda",)),
    # people
    (_ids(981, 982, 983), ("person",)),
    # vehicles
    (_ids(436, 468, 511, 609, 627, 656, 661, 751, 817), ("car", "vehicle")),
    (_ids(407, 555, 569, 675, 717, 734, 864, 867), ("truck", "vehicle")),
    (_ids(654, 779, 874), ("bus", "vehicle")),
    (_ids(665, 670), ("motorcycle", "motorbike", "scooter", "vehicle")),
    (_ids(444, 671, 870, 880), ("bicycle", "bike", "vehicle")),
    (_ids(466, 547, 565, 705, 820, 829), ("train", "vehicle")),
    (_ids(403, 472, 484, 510, 554, 576, 625, 628, 724, 780, 814, 833, 871, 914), ("boat", "ship", "vehicle")),
    (_ids(404, 895, 908), ("airplane", "aircraft", "vehicle")),
    (_ids(561, 573, 575, 586, 595, 603, 612, 690, 757, 802, 803, 847, 856, 866), ("vehicle",)),
    (_ids(479, 581), ("car part",)),
    # furniture and household
    (_ids(423, 559, 765, 857), ("chair", "furniture")),
    (_ids(831), ("couch", "sofa", "furniture")),
    (_ids(516, 520, 564), ("bed", "furniture")),
    (_ids(526, 532), ("table", "furniture")),
    (_ids(453, 492, 493, 495, 548, 553, 648, 894), ("cabinet", "furniture")),
    (_ids(703), ("bench",)),
    (_ids(619, 846), ("lamp",)),
    (_ids(721, 750), ("bedding",)),
    (_ids(799), ("door",)),
    (_ids(904, 905), ("window",)),
    (_ids(861, 999), ("toilet",)),
    (_ids(896), ("sink",)),
    (_ids(435), ("bathtub",)),
    (_ids(412), ("trash can", "bin")),
    (_ids(883, 738), ("vase", "pot")),
    (_ids(879), ("umbrella",)),
    (_ids(850), ("teddy bear", "toy")),
    (_ids(409, 530, 892), ("clock",)),
    (_ids(531, 826), ("watch",)),
    (_ids(478, 519), ("box",)),
    (_ids(588, 790), ("basket",)),
    (_ids(791), ("cart",)),
    (_ids(463), ("bucket",)),
    (_ids(462, 840), ("broom", "cleaning tool")),
    # kitchen, food and drink
    (_ids(504, 968), ("cup", "mug")),
    (_ids(967), ("coffee", "cup", "drink")),
    (_ids(505, 550), ("coffee maker",)),
    (_ids(849), ("teapot",)),
    (_ids(440, 720, 737, 898, 907), ("bottle",)),
    (_ids(441, 572), ("glass",)),
    (_ids(966, 969), ("drink",)),
    (_ids(659, 809), ("bowl",)),
    (_ids(923), ("plate", "dish")),
    (_ids(499, 623), ("knife",)),
    (_ids(618, 910), ("spoon",)),
    (_ids(544, 567, 909, 469), ("pan", "pot", "cookware")),
    (_ids(651), ("microwave", "kitchen appliance")),
    (_ids(760), ("refrigerator", "fridge", "kitchen appliance")),
    (_ids(859), ("toaster", "kitchen appliance")),
    (_ids(827), ("stove", "oven", "kitchen appliance")),
    (_ids(534, 891, 521, 766), ("kitchen appliance",)),
    (_ids(_R(924, 966)), ("food",)),
    (_ids(_R(948, 958)), ("fruit",)),
    (_ids(948), ("apple",)),
    (_ids(_R(936, 947)), ("vegetable",)),
    (_ids(933, 934), ("sandwich",)),
    (_ids(933), ("burger",)),
    (_ids(927, 928, 929), ("dessert",)),
    # electronics
    (_ids(527, 590, 620, 681), ("computer",)),
    (_ids(620, 681), ("laptop",)),
    (_ids(508, 878), ("keyboard",)),
    (_ids(673), ("computer mouse",)),
    (_ids(664, 782, 851), ("screen", "monitor", "tv")),
    (_ids(487, 528, 707), ("phone", "telephone")),
    (_ids(487), ("cell phone", "mobile phone", "smartphone")),
    (_ids(761), ("remote control",)),
    (_ids(732, 759), ("camera",)),
    (_ids(632), ("speaker",)),
    (_ids(742, 713), ("printer",)),
    (_ids(545, 753, 811), ("heater or fan",)),
    (_ids(882, 897), ("household appliance",)),
    # tools
    (_ids(477, 491, 587, 596, 740, 784, 792, 726), ("tool",)),
    (_ids(477), ("toolbox", "tool kit")),
    (_ids(418, 563, 749), ("pen",)),
    # carried things and clothing
    (_ids(414), ("backpack", "bag")),
    (_ids(728, 748, 636, 797), ("bag",)),
    (_ids(748, 893), ("purse", "wallet")),
    (_ids(_R(429, 431), 522, 574, 722, 768, 805, 852, 890), ("ball",)),
    (_ids(502, 514, 630, 770, 774), ("shoe", "footwear")),
    (_ids(452, 515, 808), ("hat",)),
    (_ids(518, 560), ("helmet",)),
    (_ids(836, 837), ("sunglasses", "glasses")),
    (_ids(399, 474, 568, 578, 608, 610, 697, 834, 841, 869), ("clothing",)),
    (_ids(402, 420, 486, 546, 579, 881, 889), ("musical instrument",)),
    (_ids(402, 546), ("guitar",)),
    (_ids(579, 881), ("piano",)),
    (_ids(917, 921), ("book",)),
    # places and structures
    (_ids(425, 483, 497, 498, 663, 668, 698, 743), ("building",)),
    (_ids(821, 839, 888), ("bridge",)),
    (_ids(489, 716, 912), ("fence",)),
    (_ids(919), ("sign",)),
    (_ids(920), ("traffic light",)),
    (_ids(704), ("parking meter",)),
    (_ids(985, 986), ("flower", "plant")),
    (_ids(947, _R(991, 998)), ("mushroom",)),
)


def read_labels(path: Path) -> list[tuple[str, ...]]:
    """Synonyms of each class, one line per class ("tabby, tabby cat")."""
    classes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            classes.append(tuple(name.strip() for name in line.split(",") if name.strip()))
    return classes


def class_names(classes: list[tuple[str, ...]]) -> list[str]:
    """One unique display name per class: its first synonym, renamed where ImageNet repeats one."""
    renamed = _RENAMED if len(classes) == NUM_CLASSES else {}
    return [renamed.get(i, names[0] if names else f"class {i}") for i, names in enumerate(classes)]


def class_terms(classes: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Per class: its other synonyms, then everyday words; only ImageNet-1k gets the everyday words."""
    names = class_names(classes)
    extra: dict[int, list[str]] = {}
    if len(classes) == NUM_CLASSES:
        for indices, everyday in sorted(_EVERYDAY, key=lambda entry: len(entry[0])):  # narrow words first
            for index in indices:
                extra.setdefault(index, []).extend(everyday)
    terms = []
    for index, synonyms in enumerate(classes):
        candidates = [*synonyms, *extra.get(index, [])]
        words = [word for word in candidates if word.lower() != names[index].lower()]
        terms.append(tuple(dict.fromkeys(words)))  # ordered, without repeats
    return terms
